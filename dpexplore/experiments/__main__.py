"""``python -m dpexplore.experiments <paper>.<function> --flags …`` (see :mod:`dpexplore.experiments`)."""

from dpexplore.experiments import main

raise SystemExit(main())
