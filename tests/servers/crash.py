"""Defect: exits with code 3 at start, explaining why on stderr."""

import sys

sys.stderr.write("loading configuration\n")
sys.stderr.write("fatal: missing config file /etc/crash-server.toml\n")
sys.exit(3)
