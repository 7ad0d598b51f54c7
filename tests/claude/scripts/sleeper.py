"""Overruns its timeout: starts a child in its process group, prints, then sleeps.

sleeper.py [--ignore-term]
"""

import signal
import subprocess
import sys
import time

if "--ignore-term" in sys.argv:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the child inherits the ignored signal
child = subprocess.Popen(["sleep", "30"])
print("partial output that must be discarded", flush=True)
time.sleep(30)
