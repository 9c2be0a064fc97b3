"""What the modules of pack `spec` share."""

SEED = "002"
BOGUS_VERSION = "1999-01-01"  # a protocol version no server supports
