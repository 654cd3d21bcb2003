"""Data for scripts/bench-card, made the way the service is used: invoices through the API, a
checkout for each through the public page's "Pay by card", payments on the Stripe stand-in's
control API, and the stand-in's own events, signed here with the endpoint's secret.

    card.py setup                  connect the bench account's test environment to a new
                                   stand-in account; prints shell assignments
    card.py invoices N OUT         N invoices made and sent; OUT: id, number, token per line
    card.py open IN OUT            "Pay by card" posted once per invoice of IN; OUT adds the
                                   checkout session the server opened
    card.py pay IN                 each session of IN paid on the stand-in (webhooks held)
    card.py events IN OUT          each paid session's checkout.session.completed event, as
                                   GET /v1/events/{id} answers it; OUT: one JSON string a line
    card.py deliver IN N           the first N events of IN signed and delivered (ENDPOINT)
    card.py sign IN PREFIX THREADS [SKIP]  the events (after the first SKIP) signed now with
                                   WHSEC: PREFIX.<thread>.lua, dealt round-robin over THREADS
    card.py paths IN PREFIX THREADS the invoices' card form posts: PREFIX.<thread>.lua
    card.py sessions IN OUT        the sessions of IN as a Lua array (for wrk on the stand-in)
    card.py create-form            the form body of the server's last POST /v1/checkout/sessions
    card.py payments               verified payments and card payments of the account

Environment: API (https://127.0.0.1:PORT), KEY (the account's API key), STANDIN
(http://127.0.0.1:PORT), SK (the stand-in secret key, after setup), WHSEC, JOBS (parallel
requests, default 8). Only the standard library.
"""
import hashlib
import hmac
import http.client
import json
import os
import ssl
import sys
import threading
import time
import urllib.parse
import uuid
from concurrent.futures import ThreadPoolExecutor

JOBS = int(os.environ.get("JOBS", "8"))
_local = threading.local()


class Http:
    """One kept-alive connection per thread and base URL; a broken one is opened again and the
    request sent again (every POST here is safe to repeat: API calls carry an Idempotency-Key)."""

    def __init__(self, base):
        u = urllib.parse.urlsplit(base)
        self.https = u.scheme == "https"
        self.host, self.port = u.hostname, u.port

    def _conn(self):
        key = (self.host, self.port)
        conns = _local.__dict__.setdefault("conns", {})
        c = conns.get(key)
        if c is None:
            if self.https:
                ctx = ssl.create_default_context()
                ctx.check_hostname = False
                ctx.verify_mode = ssl.CERT_NONE
                c = http.client.HTTPSConnection(self.host, self.port, context=ctx, timeout=60)
            else:
                c = http.client.HTTPConnection(self.host, self.port, timeout=60)
            conns[key] = c
        return c

    def request(self, method, path, body=None, headers=None):
        if isinstance(body, str):
            body = body.encode()
        for attempt in range(3):
            c = self._conn()
            try:
                c.request(method, path, body=body, headers=headers or {})
                r = c.getresponse()
                data = r.read()
                return r.status, dict(r.getheaders()), data
            except (http.client.HTTPException, OSError):
                c.close()
                _local.conns.pop((self.host, self.port), None)
                if attempt == 2:
                    raise
                time.sleep(0.2)


def env(name):
    v = os.environ.get(name)
    if not v:
        sys.exit("card.py: %s is not set" % name)
    return v


def api():
    return Http(env("API"))


def api_call(method, path, payload=None):
    h = {"Authorization": "Bearer " + env("KEY"), "Content-Type": "application/json"}
    if method == "POST" or method == "PUT" or method == "PATCH":
        h["Idempotency-Key"] = str(uuid.uuid4())
    body = json.dumps(payload) if payload is not None else None
    status, _, data = api().request(method, path, body, h)
    if status >= 300:
        raise SystemExit("card.py: %s %s: %d %s" % (method, path, status, data[:300]))
    return json.loads(data) if data else None


def standin_call(method, path, payload=None, form=None, secret=None):
    h = {}
    body = None
    if secret:
        h["Authorization"] = "Bearer " + secret
    if form is not None:
        h["Content-Type"] = "application/x-www-form-urlencoded"
        body = urllib.parse.urlencode(form)
    elif payload is not None or method == "POST":
        h["Content-Type"] = "application/json"
        body = json.dumps(payload or {})
    status, _, data = Http(env("STANDIN")).request(method, path, body, h)
    if status >= 300:
        raise SystemExit("card.py: stand-in %s %s: %d %s" % (method, path, status, data[:300]))
    return json.loads(data)


def parallel(fn, items):
    """fn over items with JOBS threads, results in order; the first failure stops it all."""
    out = [None] * len(items)
    done = [0]
    lock = threading.Lock()
    started = time.monotonic()

    def one(i):
        out[i] = fn(items[i])
        with lock:
            done[0] += 1
            if done[0] % 5000 == 0:
                print("  %d/%d (%.0f/s)" % (done[0], len(items),
                                            done[0] / (time.monotonic() - started)),
                      file=sys.stderr)

    with ThreadPoolExecutor(JOBS) as pool:
        for f in [pool.submit(one, i) for i in range(len(items))]:
            f.result()
    return out


def read_tsv(path):
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def write_tsv(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")


LINES = [
    {"description": "Consulting", "quantity": "1.5", "unit_price_cents": 3300, "tax_rate": "19"},
    {"description": "Hosting", "quantity": 2, "unit_price_cents": 1000},
    {"description": "Support", "quantity": 1, "unit_price_cents": 3000, "tax_rate": "19"},
]


def setup():
    acct = standin_call("POST", "/_standin/accounts", {"name": "Bench merchant"})
    sk, pk = acct["test"]["secret_key"], acct["test"]["publishable_key"]
    keys = {"secret_key": sk, "publishable_key": pk}
    settings = api_call("PUT", "/api/v1/account/gateways/stripe", keys)
    url = settings["webhook_url"]
    ep = standin_call("POST", "/v1/webhook_endpoints", secret=sk,
                      form={"url": url, "enabled_events[]": "*"})
    whsec = ep["secret"]
    api_call("PUT", "/api/v1/account/gateways/stripe", dict(keys, webhook_secret=whsec))
    standin_call("POST", "/_standin/webhooks", {"mode": "hold"})
    customer = api_call("POST", "/api/v1/customers",
                        {"name": "Ada Lovelace", "email": "ada@example.com"})["id"]
    endpoint = urllib.parse.urlsplit(url).path.rsplit("/", 1)[1]
    print("acct=%s SK=%s WHSEC=%s endpoint=%s customer=%s"
          % (acct["account"], sk, whsec, endpoint, customer))


def invoices(n, out):
    customer = int(env("CUSTOMER"))

    def one(_):
        inv = api_call("POST", "/api/v1/invoices", {"customer_id": customer, "line_items": LINES})
        sent = api_call("POST", "/api/v1/invoices/%d/send" % inv["id"])
        link = urllib.parse.urlsplit(sent["payment_link"])
        token = urllib.parse.parse_qs(link.query)["token"][0]
        return inv["id"], sent["invoice_number"], token

    write_tsv(out, parallel(one, list(range(int(n)))))


def open_(inp, out):
    http_ = api()

    def one(row):
        _, number, token = row[:3]
        status, headers, data = http_.request(
            "POST", "/invoice/%s/card" % number, urllib.parse.urlencode({"token": token}),
            {"Content-Type": "application/x-www-form-urlencoded"})
        loc = headers.get("Location") or headers.get("location") or ""
        if status != 303 or "/c/pay/" not in loc:
            raise SystemExit("card.py: pay by card for %s: %d %s %s" % (number, status, loc,
                                                                        data[:300]))
        return row[:3] + [loc.rsplit("/", 1)[1]]

    write_tsv(out, parallel(one, read_tsv(inp)))


def pay(inp):
    def one(row):
        s = standin_call("POST", "/_standin/sessions/%s/pay" % row[3], {})
        if s["status"] != "complete" or s["payment_status"] != "paid":
            raise SystemExit("card.py: session %s is %s/%s after pay"
                             % (row[3], s["status"], s["payment_status"]))

    parallel(one, read_tsv(inp))


def events(inp, out):
    sk = env("SK")
    listed = standin_call("GET", "/_standin/events?type=checkout.session.completed")["events"]
    by_session = {e["object_id"]: e["id"] for e in listed}
    rows = read_tsv(inp)
    missing = [r[3] for r in rows if r[3] not in by_session]
    if missing:
        raise SystemExit("card.py: %d sessions have no completed event (first %s)"
                         % (len(missing), missing[0]))
    http_ = Http(env("STANDIN"))

    def one(row):
        status, _, data = http_.request("GET", "/v1/events/" + by_session[row[3]],
                                        headers={"Authorization": "Bearer " + sk})
        if status != 200:
            raise SystemExit("card.py: GET event: %d %s" % (status, data[:300]))
        return data.decode("utf-8")

    bodies = parallel(one, rows)
    with open(out, "w") as f:
        for b in bodies:
            f.write(json.dumps(b, ensure_ascii=False) + "\n")


def lua_long(s):
    """s as a Lua long string, its level chosen so s cannot close it."""
    level = 0
    while ("]" + "=" * level + "]") in s:
        level += 1
    eq = "=" * level
    # A newline right after the opening bracket would be dropped: there is none here (JSON and
    # signatures start with a printable character), but keep it exact anyway.
    return "[" + eq + "[" + ("\n" if s.startswith("\n") else "") + s + "]" + eq + "]"


class LuaArrays:
    """Lua files that each return an array, written entry by entry, dealt round-robin. A Lua
    function holds at most 65,536 constants: the entries go in chunks, each its own function."""

    CHUNK = 4000

    def __init__(self, prefix, count):
        self.files = [open("%s.%d.lua" % (prefix, t), "w") for t in range(int(count))]
        self.sizes = [0] * len(self.files)
        self.i = 0
        for f in self.files:
            f.write("local t = {}\nlocal function add(c) for _, e in ipairs(c) do t[#t + 1] = e "
                    "end end\nadd((function() return {\n")

    def add(self, entry):
        k = self.i % len(self.files)
        self.i += 1
        f = self.files[k]
        if self.sizes[k] and self.sizes[k] % self.CHUNK == 0:
            f.write("} end)())\nadd((function() return {\n")
        f.write(entry + ",\n")
        self.sizes[k] += 1

    def close(self):
        for f in self.files:
            f.write("} end)())\nreturn t\n")
            f.close()


def signature(body, t):
    mac = hmac.new(env("WHSEC").encode(), ("%d." % t).encode() + body.encode("utf-8"),
                   hashlib.sha256).hexdigest()
    return "t=%d,v1=%s" % (t, mac)


def read_events(inp):
    with open(inp) as f:
        return [json.loads(line) for line in f]


def sign(inp, prefix, threads, skip="0"):
    out = LuaArrays(prefix, threads)
    t = int(time.time())
    for body in read_events(inp)[int(skip):]:
        out.add("{%s,%s}" % (lua_long(signature(body, t)), lua_long(body)))
    out.close()
    print("%d events signed at t=%d" % (out.i, t), file=sys.stderr)


def deliver(inp, count):
    """The first COUNT events delivered as Stripe would, each answered 200 (ENDPOINT)."""
    path = "/webhooks/stripe/" + env("ENDPOINT")
    http_ = api()

    def one(body):
        status, _, data = http_.request("POST", path, body, {
            "Content-Type": "application/json; charset=utf-8",
            "Stripe-Signature": signature(body, int(time.time()))})
        if status != 200:
            raise SystemExit("card.py: webhook answered %d %s" % (status, data[:300]))

    parallel(one, read_events(inp)[:int(count)])


def paths(inp, prefix, threads):
    out = LuaArrays(prefix, threads)
    for row in read_tsv(inp):
        out.add('{"/invoice/%s/card", "token=%s"}' % (row[1], urllib.parse.quote(row[2], safe="")))
    out.close()


def sessions(inp, out):
    with open(out, "w") as f:
        f.write("return {\n")
        for row in read_tsv(inp):
            f.write('"%s",\n' % row[3])
        f.write("}\n")


def flatten(prefix, node, out):
    if isinstance(node, dict):
        for k, v in node.items():
            flatten("%s[%s]" % (prefix, k) if prefix else k, v, out)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            flatten("%s[%d]" % (prefix, i), v, out)
    else:
        out.append((prefix, node))


def create_form():
    reqs = standin_call("GET", "/_standin/requests")["requests"]
    made = [r for r in reqs if r["method"] == "POST" and r["path"] == "/v1/checkout/sessions"
            and r["status"] == 200]
    if not made:
        raise SystemExit("card.py: the server opened no checkout session")
    pairs = []
    flatten("", made[-1]["params"], pairs)
    print(urllib.parse.urlencode(pairs))


def payments():
    verified = api_call("GET", "/api/v1/payments?status=verified&per_page=1")["total"]
    card, page = 0, 1
    while True:
        got = api_call("GET", "/api/v1/payments?status=verified&per_page=100&page=%d" % page)
        card += sum(1 for p in got["data"] if p.get("method") == "card")
        if not got["has_more"]:
            break
        page += 1
    paid = api_call("GET", "/api/v1/invoices?status=paid&per_page=1")["total"]
    print("%d %d %d" % (verified, card, paid))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    {"setup": setup, "invoices": invoices, "open": open_, "pay": pay, "events": events,
     "sign": sign, "deliver": deliver, "paths": paths, "sessions": sessions, "create-form": create_form,
     "payments": payments}[cmd](*args)


if __name__ == "__main__":
    main()
