"""Tests of the hostile-file corpus run through the model, the CLI and the app (shared helpers live at the top of tests/, on the path through pyproject's pythonpath)."""
