#!/usr/bin/env python3
"""Prove that the Stripe stand-in answers as Stripe does, with Stripe's official Python library.

  python3 -m venv target/pyenv                       # once, if missing
  target/pyenv/bin/pip install stripe==16.1.0
  target/pyenv/bin/python scripts/stripe_standin/check_standin.py

Starts standin.py on a free port (with `python -I -S`: no site-packages, so it runs on the
standard library alone),
drives it with `stripe.StripeClient`, receives its webhooks on a local receiver and checks them
with `stripe.Webhook.construct_event` (Stripe's own verifier) and with Stripe's published
signature scheme computed here by hand. Stops the stand-in it started. Exits non-zero with a
message on the first mismatch; prints one summary line on success.
"""

import hashlib
import hmac
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STRIPE_PIN = "16.1.0"
PINNED_VERSION = "2024-06-20"  # the Stripe-Version the check pins, as our adapter does
HERE = os.path.dirname(os.path.abspath(__file__))

try:
    import stripe
except ImportError:
    sys.exit("check_standin: the official `stripe` library is missing; install it with "
             "target/pyenv/bin/pip install stripe==%s and run this with target/pyenv/bin/python"
             % STRIPE_PIN)


class Mismatch(Exception):
    pass


CHECKS = [0]


def check(cond, what, got=None):
    CHECKS[0] += 1
    if not cond:
        raise Mismatch(what + ("" if got is None else " (got: %r)" % (got,)))


def expect_error(cls, fn, what):
    try:
        fn()
    except cls as e:
        CHECKS[0] += 1
        return e
    except Exception as e:
        raise Mismatch("%s: expected %s, got %r" % (what, cls.__name__, e))
    raise Mismatch("%s: expected %s, but the call succeeded" % (what, cls.__name__))


def err_body(e):
    return (e.json_body or {}).get("error", {})


# --- plain HTTP -------------------------------------------------------------------------------

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


_NOREDIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())


def http(method, url, body=None, headers=None, follow=True):
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with (_OPENER if follow else _NOREDIRECT).open(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


class Control:
    def __init__(self, base):
        self.base = base

    def __call__(self, method, path, data=None):
        body = json.dumps(data or {}).encode() if method == "POST" else None
        status, _, raw = http(method, self.base + path, body,
                              {"Content-Type": "application/json"})
        if status != 200:
            raise Mismatch("control %s %s answered %d: %s" % (method, path, status,
                                                              raw.decode()))
        return json.loads(raw)


# --- a webhook receiver -----------------------------------------------------------------------


class Receiver:
    """Collects what Stripe (the stand-in) POSTs; /flaky answers 500 twice before 200."""

    def __init__(self):
        self.got = queue.Queue()
        self.seen = []
        self.flaky_calls = 0
        recv = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status = 200
                if self.path == "/flaky":
                    recv.flaky_calls += 1
                    status = 500 if recv.flaky_calls <= 2 else 200
                recv.got.put({"path": self.path, "headers": dict(self.headers), "body": raw})
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.server.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, type_, path="/hook", timeout=5.0, object_id=None):
        deadline = time.monotonic() + timeout
        while True:
            for d in self.seen:
                body = json.loads(d["body"])
                if d["path"] == path and body.get("type") == type_ and (
                        object_id is None or body["data"]["object"].get("id") == object_id):
                    self.seen.remove(d)
                    return d
            left = deadline - time.monotonic()
            if left <= 0:
                raise Mismatch("no %s webhook arrived at %s within %.0fs" % (type_, path,
                                                                            timeout))
            try:
                self.seen.append(self.got.get(timeout=left))
            except queue.Empty:
                pass

    def drain(self):
        while True:
            try:
                self.seen.append(self.got.get_nowait())
            except queue.Empty:
                return

    def stop(self):
        self.server.shutdown()


# --- the stand-in -----------------------------------------------------------------------------


def start_standin(tmp):
    port_file = os.path.join(tmp, "port")
    log = open(os.path.join(tmp, "standin.log"), "w")
    # -I -S: no site-packages at all, so the stand-in runs on the standard library alone. The
    # interpreter itself, not a wrapper such as a pyenv shim, so that SIGTERM reaches it.
    proc = subprocess.Popen([sys.executable, "-I", "-S", os.path.join(HERE, "standin.py"),
                             "--port", "0", "--port-file", port_file], stdout=log, stderr=log)
    deadline = time.monotonic() + 10
    while not os.path.exists(port_file):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise Mismatch("the stand-in did not start: " + open(log.name).read())
        time.sleep(0.05)
    return proc, int(open(port_file).read()), log.name


def signature_by_hand(secret, timestamp, payload):
    """Stripe's published scheme: HMAC-SHA256 of "<t>.<payload>", keyed with the whole
    endpoint secret (whsec_ included) as UTF-8, hex-encoded."""
    return hmac.new(secret.encode("utf-8"), b"%d." % timestamp + payload,
                    hashlib.sha256).hexdigest()


def parse_sig(header):
    parts = [p.split("=", 1) for p in header.split(",")]
    t = [int(v) for k, v in parts if k == "t"]
    return (t[0] if t else None), [v for k, v in parts if k == "v1"]


def run(base, ctl, recv):
    new_client = lambda key, **kw: stripe.StripeClient(  # noqa: E731
        key, base_addresses={"api": base}, max_network_retries=0, **kw)

    # Accounts and keys.
    a = ctl("POST", "/_standin/accounts", {})
    b = ctl("POST", "/_standin/accounts", {"livemode": False})
    check(a["account"].startswith("acct_") and a["account"] != b["account"], "account ids")
    check(a["secret_key"] == a["test"]["secret_key"], "the top-level key is the test key")
    check(a["test"]["secret_key"].startswith("sk_test_")
          and a["test"]["publishable_key"].startswith("pk_test_")
          and a["live"]["secret_key"].startswith("sk_live_"), "key prefixes", a)
    client = new_client(a["test"]["secret_key"], stripe_version=PINNED_VERSION)
    client_b = new_client(b["test"]["secret_key"], stripe_version=PINNED_VERSION)
    client_live = new_client(a["live"]["secret_key"], stripe_version=PINNED_VERSION)
    client_default = new_client(a["test"]["secret_key"])  # the library's own pinned version

    # Balance.
    bal = client.v1.balance.retrieve()
    check(bal.object == "balance" and bal.livemode is False, "balance object", bal.to_dict())
    check(isinstance(bal.available, list) and isinstance(bal.pending, list), "balance lists")
    check(client_live.v1.balance.retrieve().livemode is True, "a live key addresses live mode")

    # Unknown and publishable keys.
    bad = "sk_test_" + "Q" * 20 + "abcd"
    e = expect_error(stripe.AuthenticationError, lambda: new_client(bad).v1.balance.retrieve(),
                     "unknown key")
    check(e.http_status == 401, "unknown key is a 401", e.http_status)
    check(err_body(e) == {"message": "Invalid API Key provided: sk_test_" + "*" * 20 + "abcd",
                          "type": "invalid_request_error"}, "unknown key error body", err_body(e))
    expect_error(stripe.AuthenticationError,
                 lambda: new_client(a["test"]["publishable_key"]).v1.balance.retrieve(),
                 "a publishable key on a secret-key endpoint")

    # Webhook endpoints (one pinned to our version, one flaky on the account's default).
    ep = client.v1.webhook_endpoints.create({
        "url": recv.url + "/hook", "enabled_events": ["*"], "api_version": PINNED_VERSION})
    check(ep.object == "webhook_endpoint" and ep.id.startswith("we_"), "webhook endpoint", ep)
    check(ep.secret.startswith("whsec_") and len(ep.secret) > 20, "endpoint secret", ep.secret)
    check(ep.status == "enabled" and ep.api_version == PINNED_VERSION, "endpoint fields")
    secret = ep.secret
    check("secret" not in client.v1.webhook_endpoints.retrieve(ep.id),
          "the secret is shown only on creation")
    live_ep = client_live.v1.webhook_endpoints.create({
        "url": recv.url + "/live", "enabled_events": ["*"]})
    check(live_ep.livemode is True, "a live endpoint")
    flaky = client.v1.webhook_endpoints.create({
        "url": recv.url + "/flaky", "enabled_events": ["checkout.session.completed"]})
    e = expect_error(stripe.InvalidRequestError,
                     lambda: client.v1.webhook_endpoints.create({"url": "example.com/x",
                                                                 "enabled_events": ["*"]}),
                     "endpoint URL without scheme")
    check(e.param == "url", "endpoint url param", e.param)

    # A Checkout Session exactly as the adapter creates it.
    params = {
        "mode": "payment",
        "line_items": [{"price_data": {"currency": "eur", "unit_amount": 1250,
                                       "product_data": {"name": "Invoice INV-2024-0007"}},
                        "quantity": 1}],
        "client_reference_id": "7",
        "customer_email": "payer@example.com",
        "metadata": {"invoice_id": "7"},
        "payment_intent_data": {"metadata": {"invoice_id": "7"}},
        "success_url": "http://127.0.0.1:9/paid?session={CHECKOUT_SESSION_ID}",
        "cancel_url": "http://127.0.0.1:9/invoices/7",
    }
    key = "invoice-7-attempt-1"
    s = client.v1.checkout.sessions.create(params, {"idempotency_key": key})
    check(s.id.startswith("cs_test_") and s.object == "checkout.session", "session id", s.id)
    check((s.amount_total, s.amount_subtotal, s.currency) == (1250, 1250, "eur"), "amounts")
    check((s.status, s.payment_status, s.mode) == ("open", "unpaid", "payment"), "states")
    check(s.payment_intent is None and s.customer_details is None,
          "no PaymentIntent or customer details while open")
    check(s.url == base + "/c/pay/" + s.id, "hosted page url", s.url)
    check(s.client_reference_id == "7" and s.customer_email == "payer@example.com",
          "reference and email")
    check(s.metadata.to_dict() == {"invoice_id": "7"}, "metadata", s.metadata)
    check(s.expires_at - s.created == 24 * 3600, "expires 24h after creation")
    check(s.livemode is False and s.ui_mode == "hosted", "livemode, ui_mode", s.ui_mode)
    check(s.success_url == params["success_url"] and s.cancel_url == params["cancel_url"],
          "urls")
    check(s.last_response.headers.get("Request-Id", "").startswith("req_"), "Request-Id")
    again = client.v1.checkout.sessions.create(params, {"idempotency_key": key})
    check(again.id == s.id, "the same idempotency key replays the same session", again.id)
    check(again.last_response.headers.get("Idempotent-Replayed") == "true",
          "Idempotent-Replayed header")
    other = json.loads(json.dumps(params))
    other["line_items"][0]["price_data"]["unit_amount"] = 1300
    e = expect_error(stripe.IdempotencyError,
                     lambda: client.v1.checkout.sessions.create(other,
                                                                {"idempotency_key": key}),
                     "same key, other amount")
    check(e.http_status == 400 and err_body(e)["type"] == "idempotency_error",
          "idempotency error shape", err_body(e))
    check(err_body(e)["message"].startswith("Keys for idempotent requests can only be used with "
                                            "the same parameters they were first used with"),
          "idempotency error message", err_body(e)["message"])

    # The same request as our Rust adapter encodes it (brackets percent-encoded).
    form = ("mode=payment"
            "&line_items%5B0%5D%5Bprice_data%5D%5Bcurrency%5D=eur"
            "&line_items%5B0%5D%5Bprice_data%5D%5Bunit_amount%5D=990"
            "&line_items%5B0%5D%5Bprice_data%5D%5Bproduct_data%5D%5Bname%5D="
            "Rechnung+N%C2%BA+7+%E2%80%93+M%C3%BCller"
            "&line_items%5B0%5D%5Bquantity%5D=2"
            "&metadata%5Binvoice_id%5D=8&metadata%5Bnote%5D=a%26b%3Dc"
            "&success_url=https%3A%2F%2Fexample.com%2Fpaid%3Fsession%3D%7BCHECKOUT_SESSION_ID"
            "%7D%26x%3D1&expand%5B0%5D=line_items")
    status, headers, raw = http("POST", base + "/v1/checkout/sessions", form.encode(), {
        "Authorization": "Bearer " + a["test"]["secret_key"],
        "Content-Type": "application/x-www-form-urlencoded", "Stripe-Version": PINNED_VERSION,
        "Idempotency-Key": "raw-form-1"})
    raw_s = json.loads(raw)
    check(status == 200, "the adapter's form encoding is accepted", raw_s)
    check(raw_s["amount_total"] == 1980 and raw_s["metadata"] == {"invoice_id": "8",
                                                                 "note": "a&b=c"},
          "bracket notation parsed", raw_s)
    check(raw_s["line_items"]["data"][0]["description"] == "Rechnung Nº 7 – Müller",
          "expand[0]=line_items", raw_s.get("line_items"))
    status, _, raw = http("POST", base + "/v1/checkout/sessions", json.dumps({}).encode(), {
        "Authorization": "Bearer " + a["test"]["secret_key"],
        "Content-Type": "application/json"})
    check(status == 400, "a JSON body is refused, as by Stripe", raw)

    # Retrieval, and the same object rendered for the library's own API version.
    got = client.v1.checkout.sessions.retrieve(s.id)
    check(got.to_dict() == s.to_dict(), "retrieve returns the created session")
    check(client_default.v1.checkout.sessions.retrieve(s.id).ui_mode == "hosted_page",
          "ui_mode is hosted_page from 2026-03-25.dahlia on")

    # Validation errors, as Stripe words them.
    def bad_create(change, param, code=None, message=None):
        p = json.loads(json.dumps(params))
        change(p)
        e = expect_error(stripe.InvalidRequestError,
                         lambda: client.v1.checkout.sessions.create(p), "invalid " + param)
        body = err_body(e)
        check(e.http_status == 400 and body.get("type") == "invalid_request_error",
              "400 invalid_request_error for " + param, body)
        check(body.get("param") == param, "param of the error", body)
        if code:
            check(body.get("code") == code, "code of the error for " + param, body)
        if message:
            check(body.get("message") == message, "message for " + param, body)
        return body

    pd = lambda p: p["line_items"][0]["price_data"]  # noqa: E731
    bad_create(lambda p: p.pop("success_url"), "success_url", "parameter_missing",
               "Missing required param: success_url.")
    bad_create(lambda p: pd(p).update(unit_amount=-5),
               "line_items[0][price_data][unit_amount]")
    bad_create(lambda p: pd(p).update(unit_amount="12.50"),
               "line_items[0][price_data][unit_amount]", "parameter_invalid_integer",
               "Invalid integer: 12.50")
    bad_create(lambda p: pd(p).update(currency="xyz"), "line_items[0][price_data][currency]")
    bad_create(lambda p: pd(p).update(currency="bhd", unit_amount=1005),
               "line_items[0][price_data][unit_amount]")
    bad_create(lambda p: p.update(foo="bar"), "foo", "parameter_unknown",
               "Received unknown parameter: foo")
    bad_create(lambda p: p.update(customer_email="not-an-email"), "customer_email",
               "email_invalid")
    bad_create(lambda p: p["line_items"][0].pop("quantity"), "line_items[0][quantity]",
               "parameter_missing")
    e = expect_error(stripe.InvalidRequestError, lambda: client.v1.checkout.sessions.create(
        dict(params, line_items=[{"price_data": {"currency": "eur", "unit_amount": 10,
                                                 "product_data": {"name": "x"}},
                                  "quantity": 1}])), "below the minimum charge")
    check(err_body(e)["message"] == "The Checkout Session's total amount due must add up to at "
          "least €0.50 eur", "minimum amount message", err_body(e))
    bhd = client.v1.checkout.sessions.create(dict(params, line_items=[{
        "price_data": {"currency": "bhd", "unit_amount": 1000, "product_data": {"name": "x"}},
        "quantity": 1}]))
    check(bhd.amount_total == 1000, "three-decimal amounts ending in 0 pass")

    # The hosted page.
    status, headers, page = http("GET", s.url)
    page = page.decode()
    check(status == 200 and headers.get("Content-Type", "").startswith("text/html"),
          "hosted page", status)
    for needle in ('<html lang="en">', "<title>", "<main>", "<h1>", "€12.50",
                   "Invoice INV-2024-0007", ">Pay</button>", ">Decline</button>",
                   ">Pay later</button>", ">Cancel</button>"):
        check(needle in page, "hosted page contains %r" % needle)
    check(page.count("<form") == 4, "four forms on the page", page.count("<form"))

    # Pay (control API), receive checkout.session.completed, verify it as Stripe's library does.
    paid = ctl("POST", "/_standin/sessions/%s/pay" % s.id)
    check(paid["status"] == "complete" and paid["payment_status"] == "paid", "paid", paid)
    hook = recv.wait("checkout.session.completed", object_id=s.id)
    payload, sig = hook["body"], hook["headers"].get("Stripe-Signature")
    event = stripe.Webhook.construct_event(payload, sig, secret)
    check(event.type == "checkout.session.completed" and event.id.startswith("evt_"),
          "event type and id", event.type)
    check(event.object == "event" and event.livemode is False, "event object")
    obj = event.data.object
    check(obj.id == s.id and obj.payment_status == "paid" and obj.status == "complete",
          "event data.object is the paid session")
    check(obj.payment_intent.startswith("pi_"), "event session has its PaymentIntent")
    check(obj.metadata.to_dict() == {"invoice_id": "7"}, "event metadata")
    check(obj.customer_details.email == "payer@example.com", "customer_details.email")
    check(event.api_version == PINNED_VERSION, "event api_version is the endpoint's version",
          event.api_version)
    check(event.request.to_dict() == {"id": None, "idempotency_key": None},
          "a customer action has no API request", event.request)
    check(hook["headers"].get("Content-Type") == "application/json; charset=utf-8",
          "webhook Content-Type", hook["headers"].get("Content-Type"))
    check(hook["headers"].get("User-Agent") == "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
          "webhook User-Agent", hook["headers"].get("User-Agent"))
    t, v1 = parse_sig(sig)
    check(t is not None and abs(t - time.time()) < 60, "signature timestamp", sig)
    check(signature_by_hand(secret, t, payload) in v1,
          "the signature follows Stripe's published scheme", sig)
    tampered = payload.replace(b'"paid"', b'"unpaid"', 1)
    check(tampered != payload, "tampering changed the body")
    expect_error(stripe.SignatureVerificationError,
                 lambda: stripe.Webhook.construct_event(tampered, sig, secret),
                 "a tampered body")
    stale_t = int(time.time()) - 600
    stale = "t=%d,v1=%s" % (stale_t, signature_by_hand(secret, stale_t, payload))
    e = expect_error(stripe.SignatureVerificationError,
                     lambda: stripe.Webhook.construct_event(payload, stale, secret),
                     "a stale timestamp")
    check("tolerance" in str(e), "stale timestamp refused for its age", str(e))
    expect_error(stripe.SignatureVerificationError,
                 lambda: stripe.Webhook.construct_event(payload, sig, "whsec_wrong"),
                 "another endpoint's secret")
    fetched = client.v1.events.retrieve(event.id)
    check(fetched.id == event.id and fetched.type == event.type, "GET /v1/events/{id}")
    for t_ in ("payment_intent.created", "charge.succeeded", "payment_intent.succeeded"):
        recv.wait(t_)
    flaky_hook = recv.wait("checkout.session.completed", path="/flaky", timeout=8)
    flaky_event = stripe.Webhook.construct_event(flaky_hook["body"],
                                                 flaky_hook["headers"]["Stripe-Signature"],
                                                 flaky.secret)
    check(flaky_event.api_version == a["api_version"],
          "an endpoint without api_version gets the account's default", flaky_event.api_version)
    ctl("POST", "/_standin/webhooks/wait", {"timeout": 5})
    deliveries = [d for ev in ctl("GET", "/_standin/events?type=checkout.session.completed")
                  ["events"] if ev["object_id"] == s.id for d in ev["deliveries"]
                  if d["endpoint"] == flaky.id]
    check(len(deliveries) == 1 and [x["status"] for x in deliveries[0]["attempts"]]
          == [500, 500, 200] and deliveries[0]["status"] == "succeeded",
          "a failing endpoint is retried with back-off", deliveries)

    # After payment.
    s_paid = client.v1.checkout.sessions.retrieve(s.id, {"expand": ["payment_intent"]})
    check(s_paid.url is None and s_paid.status == "complete", "no url once complete")
    pi = s_paid.payment_intent
    check(pi.object == "payment_intent" and pi.status == "succeeded"
          and pi.amount_received == 1250 and pi.currency == "eur", "PaymentIntent", pi)
    check(pi.metadata.to_dict() == {"invoice_id": "7"}, "payment_intent_data[metadata]")
    check(pi.latest_charge.startswith("ch_"), "latest_charge")
    charge = client.v1.charges.retrieve(pi.latest_charge, {"expand": ["balance_transaction"]})
    check(charge.paid and charge.amount == 1250 and charge.balance_transaction.object
          == "balance_transaction", "charge", charge)
    check(client.v1.payment_intents.retrieve(pi.id).id == pi.id, "GET payment_intent")

    # Refunds: part, too much, the rest, and once more.
    r1 = client.v1.refunds.create({"payment_intent": pi.id, "amount": 500,
                                   "reason": "requested_by_customer",
                                   "metadata": {"credit_note": "CN-1"}})
    check(r1.id.startswith("re_") and r1.object == "refund" and r1.status == "succeeded"
          and r1.amount == 500 and r1.currency == "eur", "partial refund", r1)
    check(r1.payment_intent == pi.id and r1.charge == charge.id and r1.reason
          == "requested_by_customer" and r1.metadata.to_dict() == {"credit_note": "CN-1"},
          "refund fields")
    created_hook = recv.wait("refund.created", object_id=r1.id)
    check(json.loads(created_hook["body"])["request"]["id"] == r1.last_response.request_id,
          "refund.created names the API request")
    ch_hook = json.loads(recv.wait("charge.refunded", object_id=charge.id)["body"])
    check(ch_hook["data"]["object"]["amount_refunded"] == 500
          and ch_hook["data"]["object"]["refunded"] is False
          and ch_hook["data"]["object"]["payment_intent"] == pi.id,
          "charge.refunded after a partial refund", ch_hook["data"]["object"])
    e = expect_error(stripe.InvalidRequestError,
                     lambda: client.v1.refunds.create({"payment_intent": pi.id,
                                                       "amount": 1000}), "refund too much")
    check(err_body(e).get("param") == "amount" and err_body(e)["message"]
          == "Refund amount (€10.00) is greater than unrefunded amount on charge (€7.50)",
          "over-refund error", err_body(e))
    r2 = client.v1.refunds.create({"payment_intent": pi.id})
    check(r2.amount == 750 and r2.status == "succeeded", "refund the rest", r2.amount)
    ch_hook = json.loads(recv.wait("charge.refunded", object_id=charge.id)["body"])
    check(ch_hook["data"]["object"]["amount_refunded"] == 1250
          and ch_hook["data"]["object"]["refunded"] is True, "charge fully refunded")
    e = expect_error(stripe.InvalidRequestError,
                     lambda: client.v1.refunds.create({"payment_intent": pi.id}),
                     "a second full refund")
    check(e.code == "charge_already_refunded", "charge_already_refunded", err_body(e))
    check(client.v1.refunds.retrieve(r1.id).amount == 500, "GET refund")
    e = expect_error(stripe.InvalidRequestError,
                     lambda: client.v1.refunds.create({"payment_intent": pi.id,
                                                       "reason": "changed_mind"}),
                     "an unsupported refund reason")
    check(e.param == "reason", "reason param", err_body(e))

    # Expire.
    s2 = client.v1.checkout.sessions.create(params)
    exp = client.v1.checkout.sessions.expire(s2.id)
    check(exp.status == "expired" and exp.url is None, "expired", exp)
    e = expect_error(stripe.InvalidRequestError,
                     lambda: client.v1.checkout.sessions.expire(s2.id), "expire twice")
    check(err_body(e)["message"] == 'Only Checkout Sessions with a status in ["open"] can be '
          'expired. This Checkout Session has a status of `expired`.', "expire message",
          err_body(e))
    recv.wait("checkout.session.expired", object_id=s2.id)
    _, _, page = http("GET", base + "/c/pay/" + s2.id)
    check(b"<form" not in page and b"expired" in page, "an expired session's page has no form")

    # Other accounts and modes see nothing.
    e = expect_error(stripe.InvalidRequestError,
                     lambda: client_b.v1.checkout.sessions.retrieve(s.id), "another account")
    check(e.http_status == 404 and e.code == "resource_missing" and e.param == "id",
          "404 resource_missing", err_body(e))
    check(err_body(e)["message"] == "No such checkout.session: '%s'" % s.id,
          "resource_missing message", err_body(e))
    e = expect_error(stripe.InvalidRequestError,
                     lambda: client_live.v1.checkout.sessions.retrieve(s.id), "the live key")
    check(e.http_status == 404 and "a similar object exists in test mode" in str(e),
          "test objects are hidden from live keys", str(e))

    # Decline, then pay, through the hosted page's forms.
    s3 = client.v1.checkout.sessions.create(params)
    status, _, page = http("POST", base + "/c/pay/%s/decline" % s3.id, b"email=a%40b.example")
    check(status == 200 and b"Your card was declined." in page and b"<form" in page,
          "a declined card shows the page again", status)
    s3d = client.v1.checkout.sessions.retrieve(s3.id)
    check(s3d.status == "open" and s3d.payment_status == "unpaid", "still open after decline")
    recv.wait("payment_intent.payment_failed", object_id=s3d.payment_intent)
    status, headers, _ = http("POST", base + "/c/pay/%s/pay" % s3.id, b"", follow=False)
    check(status == 303 and headers.get("Location")
          == "http://127.0.0.1:9/paid?session=" + s3.id, "Pay redirects to success_url", headers)
    check(client.v1.checkout.sessions.retrieve(s3.id).payment_status == "paid", "paid after")
    check(client.v1.payment_intents.retrieve(s3d.payment_intent).status == "succeeded",
          "the declined PaymentIntent succeeds on the second try")
    recv.wait("checkout.session.completed", object_id=s3.id)

    # Cancel.
    s4 = client.v1.checkout.sessions.create(params)
    status, headers, _ = http("POST", base + "/c/pay/%s/cancel" % s4.id, b"", follow=False)
    check(status == 303 and headers.get("Location") == params["cancel_url"], "Cancel", headers)
    check(client.v1.checkout.sessions.retrieve(s4.id).status == "open", "open after Cancel")

    # Pay later: completed unpaid, then settled either way.
    for result in ("succeeded", "failed"):
        s5 = client.v1.checkout.sessions.create(params)
        status, headers, _ = http("POST", base + "/c/pay/%s/pay_later" % s5.id, b"",
                                  follow=False)
        check(status == 303, "Pay later redirects", status)
        done = json.loads(recv.wait("checkout.session.completed", object_id=s5.id)["body"])
        check(done["data"]["object"]["payment_status"] == "unpaid", "completed but unpaid")
        s5r = client.v1.checkout.sessions.retrieve(s5.id, {"expand": ["payment_intent"]})
        check(s5r.payment_intent.status == "processing", "PaymentIntent processing")
        ctl("POST", "/_standin/sessions/%s/async" % s5.id, {"result": result})
        hook = recv.wait("checkout.session.async_payment_" + result, object_id=s5.id)
        ev = stripe.Webhook.construct_event(hook["body"], hook["headers"]["Stripe-Signature"],
                                            secret)
        check(ev.data.object.payment_status == ("paid" if result == "succeeded" else "unpaid"),
              "async payment " + result)

    # A pending refund settled later.
    ctl("POST", "/_standin/refund_mode", {"status": "pending"})
    s6 = client.v1.checkout.sessions.create(params)
    pi6 = ctl("POST", "/_standin/sessions/%s/pay" % s6.id)["payment_intent"]
    r3 = client.v1.refunds.create({"payment_intent": pi6, "amount": 250})
    check(r3.status == "pending", "a pending refund", r3.status)
    ctl("POST", "/_standin/refunds/" + r3.id, {"status": "succeeded"})
    upd = json.loads(recv.wait("refund.updated", object_id=r3.id)["body"])
    check(upd["data"]["object"]["status"] == "succeeded"
          and upd["data"]["previous_attributes"] == {"status": "pending"}, "refund.updated", upd)
    ctl("POST", "/_standin/refund_mode", {"status": "succeeded"})

    # Lost webhooks, resent; held webhooks, released.
    ctl("POST", "/_standin/webhooks", {"mode": "fail"})
    s7 = client.v1.checkout.sessions.create(params)
    client.v1.checkout.sessions.expire(s7.id)
    ctl("POST", "/_standin/webhooks/wait", {"timeout": 5})
    lost = [ev for ev in ctl("GET", "/_standin/events?type=checkout.session.expired")["events"]
            if ev["object_id"] == s7.id][0]
    check(lost["deliveries"][0]["status"] == "failed", "fail mode records the loss", lost)
    ctl("POST", "/_standin/webhooks", {"mode": "deliver"})
    ctl("POST", "/_standin/events/%s/resend" % lost["id"])
    hook = recv.wait("checkout.session.expired", object_id=s7.id)
    resent = stripe.Webhook.construct_event(hook["body"], hook["headers"]["Stripe-Signature"],
                                            secret)
    check(resent.id == lost["id"], "a resent event keeps its id")
    ctl("POST", "/_standin/webhooks", {"mode": "hold"})
    s8 = client.v1.checkout.sessions.create(params)
    client.v1.checkout.sessions.expire(s8.id)
    ctl("POST", "/_standin/webhooks/wait", {"timeout": 5})
    recv.drain()
    check(not any(json.loads(d["body"])["data"]["object"].get("id") == s8.id
                  for d in recv.seen), "hold mode delivers nothing")
    ctl("POST", "/_standin/webhooks", {"mode": "deliver"})
    check(ctl("POST", "/_standin/webhooks/release")["released"] >= 1, "release")
    recv.wait("checkout.session.expired", object_id=s8.id)

    # Stripe unreachable.
    ctl("POST", "/_standin/down", {"down": True})
    e = expect_error(stripe.APIError, lambda: client.v1.balance.retrieve(), "down")
    check(e.http_status == 503 and err_body(e)["type"] == "api_error", "503 api_error")
    ctl("POST", "/_standin/down", {"down": False})
    check(client.v1.balance.retrieve().object == "balance", "back up")

    recv.drain()
    check(not any(d["path"] == "/live" for d in recv.seen),
          "test-mode events never reach a live-mode endpoint")

    # The request log: every POST carried an idempotency key, every call a Stripe-Version.
    log = [r for r in ctl("GET", "/_standin/requests?account=" + a["account"])["requests"]
           if (r["user_agent"] or "").startswith("Stripe/v1 PythonBindings")]
    posts = [r for r in log if r["method"] == "POST"]
    check(len(posts) > 10 and all(r["idempotency_key"] for r in posts),
          "every POST has an Idempotency-Key", [r for r in posts if not r["idempotency_key"]])
    check(all(r["stripe_version"] for r in log), "every call pins a Stripe-Version")
    check(any(r["replayed"] for r in log), "the replay is logged")
    check({r["stripe_version"] for r in log} >= {PINNED_VERSION}, "pinned version logged")


def main():
    version = getattr(stripe, "VERSION", None) or getattr(stripe, "_version").VERSION
    if version != STRIPE_PIN:
        sys.exit("check_standin: expected stripe==%s, found %s (target/pyenv/bin/pip install "
                 "stripe==%s)" % (STRIPE_PIN, version, STRIPE_PIN))
    started = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="stripe-standin-check-")
    proc = log = None
    recv = Receiver()
    try:
        proc, port, log = start_standin(tmp)
        base = "http://127.0.0.1:%d" % port
        run(base, Control(base), recv)
    except Mismatch as e:
        print("check_standin: MISMATCH: %s" % e, file=sys.stderr)
        if log:
            sys.stderr.write(open(log).read()[-4000:])
        return 1
    except stripe.StripeError as e:
        print("check_standin: MISMATCH: unexpected %s: %s %s" % (type(e).__name__, e,
                                                                e.json_body), file=sys.stderr)
        if log:
            sys.stderr.write(open(log).read()[-4000:])
        return 1
    finally:
        recv.stop()
        if proc is not None:
            proc.terminate()
            try:
                code = proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                code = "killed"
        shutil.rmtree(tmp, ignore_errors=True)
    if code != 0:
        print("check_standin: the stand-in did not exit cleanly on SIGTERM (%s)" % code,
              file=sys.stderr)
        return 1
    print("check_standin: OK: %d checks passed against the Stripe stand-in with stripe-python "
          "%s (Stripe-Version %s) in %.1fs" % (CHECKS[0], version, PINNED_VERSION,
                                                time.monotonic() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
