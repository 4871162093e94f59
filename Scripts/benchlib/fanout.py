"""`--fanout N`: one message to N devices in 3 languages to the NullGateway, on a pushwired of its own."""

import json
import os
import shutil
import tempfile

from .common import log, run
from .servers import start


def fanout_figure(bench, pushwired_binary, devices):
    """One message to `devices` devices in 3 languages, to the NullGateway (`--sink /dev/null`), on a
    pushwired of its own: `pushwire-bench fanout` registers the devices, sends, and polls
    GetMessageDetails every 20 ms until it is done. Returns its JSON figures (plus the load average),
    or the reason it could not be measured."""
    data_dir = tempfile.mkdtemp(prefix="pushwire-bench-fanout-")
    server = None
    try:
        server = start("pushwired (fan-out)", [pushwired_binary, "--listen", "127.0.0.1:0", "--data-dir", data_dir,
                                               "--sink", "/dev/null"])
        if not server:
            return "n/a (pushwired did not start)"
        log(f"measuring the fan-out to {devices} devices (registration first)")
        load = os.getloadavg()[0]
        result = json.loads(run([bench, "fanout", "--target", server.address, "--data-dir", data_dir,
                                 "--devices", str(devices), "--server-pid", str(server.process.pid), "--json"],
                                max(600, devices // 1000)))
        result["load"] = load
        return result
    except Exception as error:  # noqa: BLE001 - reported, not fatal
        return f"n/a ({error})"
    finally:
        if server:
            server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
