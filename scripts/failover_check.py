"""Load and assertions of scripts/failover-test (standard library only).

Four clients create invoices through two servers, each with its own Idempotency-Key, retrying a
503, a 409 `idempotency_key_in_use` or a broken connection with the same key until it is
answered 201. Meanwhile: a planned switch, then a kill -9 of the new primary's postmaster. At the
end the final primary must hold exactly the acknowledged invoices, with distinct gap-free
numbers; writes must have come back within 60 s of each switch; no answer may be a 500.
"""

import argparse
import http.client
import json
import os
import signal
import ssl
import subprocess
import sys
import threading
import time
import uuid

BODY = json.dumps({
    "customer": {"name": "Ada", "email": "ada@example.com"},
    "line_items": [{"description": "Consulting", "quantity": "1", "unit_price_cents": 1000}],
})


class Client(threading.Thread):
    def __init__(self, n, args, contexts, log):
        super().__init__(daemon=True)
        self.n, self.args, self.contexts, self.log = n, args, contexts, log
        self.stop = threading.Event()

    def post(self, server, key):
        url = self.args.servers[server]
        host, port = url.removeprefix("https://").split(":")
        conn = http.client.HTTPSConnection(host, int(port), context=self.contexts[server], timeout=30)
        try:
            conn.request("POST", "/api/v1/invoices", BODY, {
                "Authorization": f"Bearer {self.args.key}",
                "Content-Type": "application/json",
                "Idempotency-Key": key,
            })
            res = conn.getresponse()
            return res.status, res.read()
        finally:
            conn.close()

    def run(self):
        i = 0
        while not self.stop.is_set():
            key = str(uuid.uuid4())
            started = time.monotonic()
            while True:
                server = i % len(self.args.servers)
                i += 1
                try:
                    status, body = self.post(server, key)
                except OSError as e:
                    self.log.append(("error", key, time.monotonic(), str(e)))
                    time.sleep(0.2)
                    continue
                now = time.monotonic()
                if status == 201:
                    invoice = json.loads(body)
                    self.log.append(("ok", key, now, invoice["id"], invoice["invoice_number"]))
                    break
                self.log.append((status, key, now, body[:200].decode("utf-8", "replace")))
                if status == 500:
                    break
                if status not in (503, 409):
                    break
                if now - started > 120:
                    self.log.append(("gave up", key, now, ""))
                    break
                time.sleep(0.2)


def primary_postmaster(monitor):
    """The pid of the current primary's postmaster (its data directory's postmaster.pid)."""
    row = subprocess.check_output([
        "psql", "-qtA", monitor, "-c",
        "SELECT nodename FROM pgautofailover.node WHERE reportedstate = 'primary'"]).decode().strip()
    return row


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--key", required=True)
    p.add_argument("--ca", required=True)
    p.add_argument("--ca2", required=True)
    p.add_argument("--servers", nargs="+", required=True)
    p.add_argument("--db", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--switch", required=True)
    p.add_argument("--monitor", required=True)
    args = p.parse_args()
    contexts = [ssl.create_default_context(cafile=args.ca), ssl.create_default_context(cafile=args.ca2)]
    log = []
    clients = [Client(n, args, contexts, log) for n in range(4)]
    for c in clients:
        c.start()

    time.sleep(8)
    switches = []
    switch_at = time.monotonic()
    switches.append(("planned switch", switch_at))
    # pg_autoctl's own progress report goes to a log: it is noisy, and only its exit matters.
    with open(os.path.join(args.work, "switch.log"), "w") as switch_log:
        subprocess.run(args.switch, shell=True, check=True, stdout=switch_log, stderr=switch_log)
    time.sleep(20)

    primary = primary_postmaster(args.monitor)
    with open(os.path.join(args.work, primary, "postmaster.pid")) as f:
        pid = int(f.readline())
    kill_at = time.monotonic()
    switches.append((f"kill -9 of {primary}'s postmaster", kill_at))
    os.kill(pid, signal.SIGKILL)
    time.sleep(30)

    for c in clients:
        c.stop.set()
    for c in clients:
        c.join(timeout=150)

    acked = [e for e in log if e[0] == "ok"]
    fivehundreds = [e for e in log if e[0] == 500]
    gave_up = [e for e in log if e[0] == "gave up"]
    statuses = {}
    for e in log:
        statuses[e[0]] = statuses.get(e[0], 0) + 1
    print(f"answers: {statuses}")

    failures = []
    if fivehundreds:
        failures.append(f"{len(fivehundreds)} answers were 500: {fivehundreds[:3]}")
    if gave_up:
        failures.append(f"{len(gave_up)} keys were never answered 201")
    others = [e for e in log if e[0] not in ("ok", "error", 503, 409)]
    if others:
        failures.append(f"unexpected answers: {others[:3]}")
    ack_times = sorted(e[2] for e in acked)
    for what, at in switches:
        # The longest stretch without an acknowledged create, from the switch until 60 s after.
        window = [at] + [t for t in ack_times if at < t <= at + 60]
        after = [t for t in ack_times if t > at]
        if not after:
            failures.append(f"no write succeeded after the {what}")
            continue
        window.append(min(after))
        pause = max(b - a for a, b in zip(window, window[1:]))
        print(f"{what}: the longest pause in writes was {pause:.1f} s")
        if pause > 60:
            failures.append(f"writes paused {pause:.1f} s after the {what}")

    rows = subprocess.check_output([
        "psql", "-qtA", args.db, "-c", "SELECT id || ' ' || number FROM invoices ORDER BY id"]).decode().split()
    stored = {}
    for i in range(0, len(rows), 2):
        stored[int(rows[i])] = rows[i + 1]
    keys = {}
    for e in acked:
        keys.setdefault(e[1], set()).add(e[3])
    doubled = {k: v for k, v in keys.items() if len(v) > 1}
    if doubled:
        failures.append(f"keys answered with two invoices: {list(doubled.items())[:3]}")
    missing = [e for e in acked if stored.get(e[3]) != e[4]]
    if missing:
        failures.append(f"{len(missing)} acknowledged invoices are not on the primary: {missing[:3]}")
    if len(stored) != len(keys):
        failures.append(f"{len(stored)} invoices stored for {len(keys)} keys: a retry made a duplicate")
    numbers = sorted(int(n.rsplit("-", 1)[1]) for n in stored.values())
    if numbers != list(range(1, len(numbers) + 1)):
        failures.append(f"numbers are not 1..{len(numbers)} without gaps")
    print(f"{len(acked)} invoices acknowledged, {len(stored)} stored, numbers 1..{len(numbers)}")
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
