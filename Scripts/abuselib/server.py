"""The pushwired under test: starting it (open-file limit raised, SCHED_FIFO under --fifo), keeping
its nicer pool threads below its loops, reading its memory from /proc."""

import os
import resource
import subprocess
import time



def real_time(priority):
    """Puts the calling process (and the threads it starts) at SCHED_FIFO `priority`; 0: unchanged."""
    if priority:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))


def lower_nicer_threads(pid, fifo):
    """Under --fifo every thread of pushwired inherits one priority, and SCHED_FIFO threads of one
    priority do not share a core by turns: a blocking-pool thread checking a 3.7 MB request would
    hold a core against the event loops. pushwired runs its pool threads 5 nicer than the process
    ("below the loops"); keep that order here by giving each thread nicer than the process a
    lower FIFO priority. Returns how many threads were moved."""
    moved = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as stat:
                nice = int(stat.read().rsplit(")", 1)[1].split()[16])
            if nice > 0:
                os.sched_setscheduler(int(tid), os.SCHED_FIFO, os.sched_param(max(1, fifo - 5)))
                moved += 1
        except (OSError, ValueError, IndexError):
            pass  # a thread that ended meanwhile
    return moved


def start_server(binary, data_dir, extra, fifo=0):
    def raise_limits():
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))
        real_time(fifo)  # before exec: every thread pushwired starts inherits the policy
    arguments = [binary, "--listen", "127.0.0.1:0", "--data-dir", data_dir, "--sink", "/dev/null", "--log-level", "warning"]
    # An older pushwired (to compare against) has no per-peer limit to raise.
    if "--max-connections-per-peer" in subprocess.run([binary, "--help"], capture_output=True, text=True).stdout:
        arguments += ["--max-connections-per-peer", "5000"]
    process = subprocess.Popen(
        arguments + extra,
        stdout=subprocess.PIPE, stderr=open(os.path.join(data_dir, "stderr.log"), "w"),
        text=True, preexec_fn=raise_limits)
    deadline = time.time() + 30
    while time.time() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        if line.startswith("listening on "):
            host, port = line.split()[-1].rsplit(":", 1)
            return process, (host, int(port))
    process.kill()
    raise RuntimeError("pushwired did not start")


def rss(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0
