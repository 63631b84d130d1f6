"""The package's version, in a leaf module that imports nothing.

The package root exports it as ``mlhidden.__version__``, run.json's provenance records it, and
pyproject.toml reads it for the build (setuptools' ``attr:``, which reads this file without running
the package): one place, which no module has to import the root, with its public API of every
layer, to read.
"""

__version__ = "0.1.0"
