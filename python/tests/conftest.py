# pytester (pytest's own fixture for running pytest sessions) drives the plugin in these tests.
pytest_plugins = ["pytester"]
