"""Defect: reads stdin and never answers; does not exit when stdin closes (only a signal stops it)."""

import sys
import threading
import time


def swallow() -> None:
    for _line in sys.stdin:
        pass


threading.Thread(target=swallow, daemon=True).start()
while True:
    time.sleep(1)
