"""What the Python tests share to start a netscore server on 127.0.0.1 and wait for it."""
import socket
import time
import urllib.error
import urllib.request

# Short enough not to slow a test down, long enough not to busy-loop while the server starts
# (under the sanitizers that can take seconds).
POLL_INTERVAL_S = 0.05


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_ok(url, process, deadline_s):
    """True once GET url answers 200; False if `process` exits or deadline_s passes first
    (a 503 from /readyz while no table is loaded keeps the wait going)."""
    deadline = time.monotonic() + deadline_s
    while process.poll() is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        try:
            with urllib.request.urlopen(url, timeout=min(5.0, remaining)) as resp:
                if resp.status == 200:
                    return True
        except urllib.error.HTTPError as e:
            e.close()
        except OSError:
            pass
        time.sleep(POLL_INTERVAL_S)
    return False
