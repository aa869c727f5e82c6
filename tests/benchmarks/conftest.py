# Benchmarks are run with plain `python tests/benchmarks/run.py`, never collected by pytest.
collect_ignore_glob = ["*.py"]
