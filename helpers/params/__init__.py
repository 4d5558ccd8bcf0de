"""The parameter calculator, one module per idea; `helpers.config_params` is its entry point.

- files: reading a config.json safely (pipes, devices, huge or binary files refused);
- fields: type-checking each field of a config;
- parts: linear layers, norms and blocks, counted in full or weights-only mode;
- classic, llama_like, experts: the model families, read as transformers builds them;
- breakdown: the Breakdown by component, FLOPs per token, tables;
- published: the totals published for the shipped configs.
"""
