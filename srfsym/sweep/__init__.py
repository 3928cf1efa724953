"""Parameter sweeps: the theory grids and network simulations of a TOML description, resumable,
on local cores or Dask (``run``), and their figures (``plot``).

>>> from srfsym.sweep import parse_spec
>>> spec = parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": 20, "eta": 3,
...                               "lam": 0.1, "alpha": [0.5, 1.0]}})
>>> len(spec["theory"]["alpha"])
2
"""
from .run import *  # noqa: F401,F403
from .run import __all__  # noqa: F401
