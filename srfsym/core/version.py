"""The version of srfsym (one place; the package, the CLI and the reference tables read it).

>>> from srfsym.core.version import __version__
>>> __version__.count(".")
2
"""
__version__ = "0.1.0"
