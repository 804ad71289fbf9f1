"""Hangs after starting a child process; writes both pids to the file named by argv[1]."""
import os
import subprocess
import sys
import time

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"])
with open(sys.argv[1], "w") as f:
    f.write("%d %d\n" % (os.getpid(), child.pid))
print("hanging", flush=True)
while True:
    time.sleep(1)
