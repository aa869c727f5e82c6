"""aiagent-monitor: watch ai-agent sessions live and take them apart afterwards."""

__version__ = "0.1.0"
