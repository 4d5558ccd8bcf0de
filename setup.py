"""The wheel's one build step beyond pyproject.toml: compile the checks' catalogs (locale/*/LC_MESSAGES)
into helpers/locale before the package is copied, so a wheel or a Colab install holds the Korean checks
although no .mo is committed (tools/compile_catalogs.py)."""

import importlib.util
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithCatalogs(build_py):
    def run(self):
        spec = importlib.util.spec_from_file_location("compile_catalogs", ROOT / "tools" / "compile_catalogs.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.compile_all(ROOT)
        super().run()


setup(cmdclass={"build_py": BuildWithCatalogs})
