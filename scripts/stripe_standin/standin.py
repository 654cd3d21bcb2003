#!/usr/bin/env python3
"""A local stand-in for the part of Stripe's API v1 that our Stripe adapter uses.

Written from Stripe's API reference (https://docs.stripe.com/api) and the official
stripe-python library; `check_standin.py` beside this file drives it with that library and
Stripe's own webhook verifier. Python 3 standard library only.

  python3 scripts/stripe_standin/standin.py --port 0 --port-file PATH [--public-base URL] [--verbose]

Listens on 127.0.0.1 only and writes the port it got to PATH (atomically) once it listens.
Stops on SIGTERM or SIGINT. Accounts and keys come from the control API
(`POST /_standin/accounts`); see README.md for the control API and for what is left out.
"""

import argparse
import base64
import copy
import decimal
import hashlib
import heapq
import hmac
import html
import itertools
import json
import os
import re
import secrets
import signal
import string
import sys
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_API_VERSION = "2024-06-20"
# 2026-03-25.dahlia renamed Checkout's ui_mode values (hosted -> hosted_page, ...).
UI_MODE_RENAMED_IN = "2026-03-25"
SESSION_LIFETIME = 24 * 3600
SESSION_MIN_LIFETIME = 30 * 60
MAX_AMOUNT = 99999999  # "up to eight digits", docs.stripe.com/currencies
WEBHOOK_TRIES = 3
WEBHOOK_BACKOFF = (0.5, 1.5)  # seconds before the 2nd and 3rd try
WEBHOOK_TIMEOUT = 2.0
MAX_WEBHOOK_ENDPOINTS = 16
WEBHOOK_USER_AGENT = "Stripe/1.0 (+https://stripe.com/docs/webhooks)"
ALNUM = string.ascii_letters + string.digits
VERSION_RE = re.compile(r"^\d{4}-\d{2}-\d{2}(\.[a-z]+)?$")
EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
EVENT_TYPE_RE = re.compile(r"^[a-z_]+(\.[a-z_]+)+$")

# Stripe's presentment currencies (docs.stripe.com/currencies).
CURRENCIES = set("""
usd aed afn all amd ang aoa ars aud awg azn bam bbd bdt bgn bhd bif bmd bnd bob brl bsd bwp
byn bzd cad cdf chf clp cny cop crc cve czk djf dkk dop dzd egp etb eur fjd fkp gbp gel gip
gmd gnf gtq gyd hkd hnl htg huf idr ils inr isk jmd jod jpy kes kgs khr kmf krw kwd kyd kzt
lak lbp lkr lrd lsl mad mdl mga mkd mmk mnt mop mur mvr mwk mxn myr mzn nad ngn nio nok npr
nzd omr pab pen pgk php pkr pln pyg qar ron rsd rub rwf sar sbd scr sek sgd shp sle sos srd
std szl thb tjs tnd top try ttd twd tzs uah ugx uyu uzs vnd vuv wst xaf xcd xof xpf yer zar
zmw
""".split())
ZERO_DECIMAL = set("bif clp djf gnf jpy kmf krw mga pyg rwf ugx vnd vuv xaf xof xpf".split())
THREE_DECIMAL = set("bhd jod kwd omr tnd".split())
# Minimum charge amounts in minor units, for a charge in the account's own settlement
# currency (docs.stripe.com/currencies#minimum-and-maximum-charge-amounts). Applied to the
# presentment currency when it is one of these; other currencies are not checked.
MINIMUM_AMOUNT = {
    "usd": 50, "aed": 200, "aud": 50, "bgn": 100, "brl": 50, "cad": 50, "chf": 50,
    "czk": 1500, "dkk": 250, "eur": 50, "gbp": 30, "hkd": 400, "huf": 17500, "inr": 50,
    "jpy": 50, "mxn": 1000, "myr": 200, "nok": 300, "nzd": 50, "pln": 200, "ron": 200,
    "sek": 300, "sgd": 50, "thb": 1000,
}
SYMBOL_BEFORE = {"usd": "$", "eur": "€", "gbp": "£", "jpy": "¥", "aud": "$", "cad": "$",
                 "hkd": "$", "nzd": "$", "sgd": "$", "mxn": "$", "inr": "₹", "brl": "R$"}
SYMBOL_AFTER = {"huf": " Ft"}

REFUND_REASONS = ("duplicate", "fraudulent", "requested_by_customer")

CHECKOUT_CREATE_PARAMS = {
    "adaptive_pricing", "after_expiration", "allow_promotion_codes",
    "allowed_payment_method_types", "automatic_tax", "billing_address_collection",
    "branding_settings", "cancel_url", "client_reference_id", "consent_collection", "currency",
    "custom_fields", "custom_text", "customer", "customer_account", "customer_creation",
    "customer_email", "customer_update", "discounts", "excluded_payment_method_types", "expand",
    "expires_at", "integration_identifier", "invoice_creation", "line_items", "locale",
    "managed_payments", "metadata", "mode", "name_collection", "optional_items",
    "origin_context", "payment_intent_data", "payment_method_collection",
    "payment_method_configuration", "payment_method_data", "payment_method_options",
    "payment_method_types", "permissions", "phone_number_collection", "redirect_on_completion",
    "return_url", "saved_payment_method_options", "setup_intent_data",
    "shipping_address_collection", "shipping_options", "submit_type", "subscription_data",
    "success_url", "tax_id_collection", "ui_mode", "wallet_options",
}
# Parameters Stripe accepts that would change amounts or the flow, which the stand-in does not
# model: refused with a 400 that says so, rather than silently ignored.
CHECKOUT_NOT_IMPLEMENTED = {
    "customer_account", "customer_update", "discounts", "managed_payments", "optional_items",
    "payment_method_configuration", "payment_method_data", "permissions",
    "redirect_on_completion", "saved_payment_method_options", "setup_intent_data",
    "shipping_options", "subscription_data",
}
CHECKOUT_ONLY_DISABLED = {"adaptive_pricing", "automatic_tax", "invoice_creation"}
LINE_ITEM_PARAMS = {"adjustable_quantity", "dynamic_tax_rates", "metadata", "price",
                    "price_data", "quantity", "tax_rates"}
PRICE_DATA_PARAMS = {"currency", "product", "product_data", "recurring", "tax_behavior",
                     "unit_amount", "unit_amount_decimal"}
PRODUCT_DATA_PARAMS = {"description", "images", "metadata", "name", "tax_code", "tax_details",
                       "unit_label"}
PAYMENT_INTENT_DATA_PARAMS = {
    "application_fee_amount", "capture_method", "description", "metadata", "on_behalf_of",
    "receipt_email", "setup_future_usage", "shipping", "statement_descriptor",
    "statement_descriptor_suffix", "transfer_data", "transfer_group",
}
REFUND_CREATE_PARAMS = {"amount", "charge", "currency", "customer", "expand",
                        "instructions_email", "metadata", "origin", "payment_intent", "reason",
                        "refund_application_fee", "reverse_transfer"}
WEBHOOK_CREATE_PARAMS = {"api_version", "connect", "description", "enabled_events", "expand",
                         "metadata", "url"}
LIST_PARAMS = {"limit", "starting_after", "ending_before", "expand", "created"}


def rand(n):
    return "".join(secrets.choice(ALNUM) for _ in range(n))


def now():
    return int(time.time())


# ---------------------------------------------------------------------------------------------
# Errors in Stripe's shape


class StripeError(Exception):
    """An error answered as `{"error": {...}}`.

    `saved`: whether Stripe's idempotency layer keeps it. Stripe saves a result only once the
    endpoint started executing; parameter validation failures are not saved.
    """

    def __init__(self, status, message, *, type="invalid_request_error", code=None, param=None,
                 saved=False, extra=None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.code = code
        self.param = param
        self.saved = saved
        self.extra = extra or {}

    def body(self):
        err = {}
        if self.code:
            err["code"] = self.code
            err["doc_url"] = "https://stripe.com/docs/error-codes/" + self.code.replace("_", "-")
        err["message"] = self.message
        if self.param:
            err["param"] = self.param
        err.update(self.extra)
        err["type"] = self.type
        return {"error": err}


def missing(param):
    return StripeError(400, "Missing required param: %s." % param, code="parameter_missing",
                       param=param)


def empty_string(param):
    return StripeError(
        400,
        "You passed an empty string for '%s'. We assume empty values are an attempt to unset a "
        "parameter; however '%s' cannot be unset. You should remove '%s' from your request or "
        "supply a non-empty value." % (param, param, param),
        code="parameter_invalid_empty", param=param)


def not_implemented(param):
    return StripeError(400, "The Stripe stand-in does not implement `%s` (Stripe accepts it; "
                       "see scripts/stripe_standin/README.md)." % param, param=param)


def no_such(kind, ident, param="id", status=404, other_mode=None):
    msg = "No such %s: '%s'" % (kind, ident)
    if other_mode is not None:
        msg += ("; a similar object exists in %s mode, but a %s mode key was used to make this "
                "request." % ("live" if other_mode else "test", "test" if other_mode else "live"))
    return StripeError(status, msg, code="resource_missing", param=param)


# ---------------------------------------------------------------------------------------------
# Request bodies: application/x-www-form-urlencoded with bracket notation

KEY_RE = re.compile(r"^([^\[\]]+)((?:\[[^\[\]]*\])*)$")
SEG_RE = re.compile(r"\[([^\[\]]*)\]")


class FormError(Exception):
    pass


def parse_form(text):
    """`a[b][0][c]=1&e[]=x` -> {"a": {"b": [{"c": "1"}]}, "e": ["x"]}.

    Integer-keyed hashes become lists (ordered by index), as Stripe reads them, except
    directly under `metadata`, whose keys are the caller's.
    """
    root = {}
    for key, value in urllib.parse.parse_qsl(text, keep_blank_values=True,
                                             errors="strict"):
        m = KEY_RE.match(key)
        if not m:
            raise FormError("Invalid parameter name: %s" % key)
        segs = [m.group(1)] + SEG_RE.findall(m.group(2))
        if "" in segs[:-1]:
            raise FormError("Invalid array: %s" % key)
        node = root
        for i, seg in enumerate(segs[:-1]):
            nxt = segs[i + 1]
            child = node.get(seg)
            if child is None:
                child = [] if nxt == "" else {}
                node[seg] = child
            elif isinstance(child, str) or (nxt == "") != isinstance(child, list):
                raise FormError("Invalid %s: %s" % ("array" if nxt == "" else "hash", key))
            node = child
        last = segs[-1]
        if last == "":
            node.append(value)
        else:
            if isinstance(node.get(last), (dict, list)):
                raise FormError("Invalid hash: %s" % key)
            node[last] = value
    return _listify(root, None)


def _listify(node, parent):
    if isinstance(node, list):
        return [_listify(v, None) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _listify(v, k) for k, v in node.items()}
    if out and parent != "metadata" and all(k.isdigit() for k in out):
        return [out[k] for k in sorted(out, key=int)]
    return out


# ---------------------------------------------------------------------------------------------
# Parameter validation, with Stripe's messages


def pname(prefix, name):
    return "%s[%s]" % (prefix, name) if prefix else name


def check_known(params, allowed, prefix=""):
    if not isinstance(params, dict):
        raise StripeError(400, "Invalid object", param=prefix or None)
    for k in params:
        if k not in allowed:
            full = pname(prefix, k)
            raise StripeError(400, "Received unknown parameter: %s" % full,
                              code="parameter_unknown", param=full)


def get_str(params, name, prefix="", required=False, max_len=None):
    full = pname(prefix, name)
    if name not in params:
        if required:
            raise missing(full)
        return None
    v = params[name]
    if not isinstance(v, str):
        raise StripeError(400, "Invalid string: %s" % json.dumps(v), param=full)
    if v == "":
        if required:
            raise empty_string(full)
        return None
    if max_len is not None and len(v) > max_len:
        raise StripeError(400, "Invalid string: %s...; must be at most %d characters"
                          % (v[:max_len], max_len), param=full)
    return v


def get_int(params, name, prefix="", required=False, minimum=None, maximum=None):
    full = pname(prefix, name)
    v = get_str(params, name, prefix, required)
    if v is None:
        return None
    if not re.fullmatch(r"-?\d+", v):
        raise StripeError(400, "Invalid integer: %s" % v, code="parameter_invalid_integer",
                          param=full)
    n = int(v)
    if minimum is not None and n < minimum:
        raise StripeError(400, "This value must be greater than or equal to %d." % minimum,
                          param=full)
    if maximum is not None and n > maximum:
        raise StripeError(400, "This value must be less than or equal to %d." % maximum,
                          param=full)
    return n


def one_of(values):
    values = list(values)
    if len(values) == 1:
        return values[0]
    return ", ".join(values[:-1]) + (", or " if len(values) > 2 else " or ") + values[-1]


def get_enum(params, name, values, prefix="", required=False):
    v = get_str(params, name, prefix, required)
    if v is not None and v not in values:
        full = pname(prefix, name)
        raise StripeError(400, "Invalid %s: must be one of %s" % (full, one_of(values)),
                          param=full)
    return v


def get_metadata(params, name="metadata", prefix=""):
    full = pname(prefix, name)
    if name not in params:
        return {}
    v = params[name]
    if v == "":
        return {}
    if not isinstance(v, dict):
        raise StripeError(400, "Invalid object", param=full)
    out = {}
    for k, val in v.items():
        if not isinstance(val, str):
            raise StripeError(400, "Invalid string: %s" % json.dumps(val),
                              param="%s[%s]" % (full, k))
        if len(k) > 40:
            raise StripeError(400, "Metadata keys can have up to 40 characters; %r has %d."
                              % (k, len(k)), param="%s[%s]" % (full, k))
        if len(val) > 500:
            raise StripeError(400, "Metadata values can have up to 500 characters; the value "
                              "of %r has %d." % (k, len(val)), param="%s[%s]" % (full, k))
        if val != "":
            out[k] = val
    if len(out) > 50:
        raise StripeError(400, "Metadata can have up to 50 keys; %d were given." % len(out),
                          param=full)
    return out


def get_list(params, name, prefix=""):
    full = pname(prefix, name)
    if name not in params:
        return None
    v = params[name]
    if v == "":
        return []
    if not isinstance(v, list):
        raise StripeError(400, "Invalid array", param=full)
    return v


def valid_url(u):
    try:
        p = urllib.parse.urlsplit(u)
    except ValueError:
        return False
    return p.scheme in ("http", "https") and bool(p.netloc) and len(u) <= 5000


def get_url(params, name, required=False):
    v = get_str(params, name, required=required)
    if v is not None and not valid_url(v):
        raise StripeError(400, "Not a valid URL", code="url_invalid", param=name)
    return v


def minor_digits(currency):
    if currency in ZERO_DECIMAL:
        return 0
    if currency in THREE_DECIMAL:
        return 3
    return 2


def format_amount(amount, currency):
    """€12.50, $0.50, 175.00 Ft, 1.250 BHD: as Stripe writes amounts in its messages."""
    digits = minor_digits(currency)
    value = decimal.Decimal(amount).scaleb(-digits)
    text = "{:,.{d}f}".format(value, d=digits)
    if currency in SYMBOL_BEFORE:
        return ("-" if amount < 0 else "") + SYMBOL_BEFORE[currency] + text.lstrip("-")
    if currency in SYMBOL_AFTER:
        return text + SYMBOL_AFTER[currency]
    return "%s %s" % (text, currency.upper())


def check_currency(value, param):
    if value is None:
        raise missing(param)
    cur = value.lower()
    if cur not in CURRENCIES:
        raise StripeError(400, "Invalid currency: %s. Stripe currently supports these "
                          "currencies: %s" % (value, ", ".join(sorted(CURRENCIES))),
                          param=param)
    return cur


def check_minor_units(amount, currency, param):
    """Three-decimal currencies: Stripe requires the last digit of the amount to be 0."""
    if currency in THREE_DECIMAL and amount % 10 != 0:
        raise StripeError(
            400, "Amounts in %s must be a multiple of 10: the API takes three-decimal "
            "currencies in minor units, but the last digit must be 0 (round to the nearest "
            "ten)." % currency, code="invalid_charge_amount", param=param)


# ---------------------------------------------------------------------------------------------
# Responses


class Response:
    def __init__(self, status, body=b"", content_type="application/json", headers=None):
        self.status = status
        self.body = body
        self.content_type = content_type
        self.headers = list(headers or [])


def json_response(status, obj, headers=None):
    return Response(status, (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode(),
                    "application/json", headers)


def public(obj):
    """The object as Stripe shows it: a deep copy without our private `_` keys."""
    if isinstance(obj, dict):
        return {k: public(v) for k, v in obj.items() if not k.startswith("_")}
    if isinstance(obj, list):
        return [public(v) for v in obj]
    return obj


def version_date(version):
    return version.split(".")[0]


def render_version(obj, version):
    """Adjust an object (and what it contains) to an API version. Only Checkout's `ui_mode`
    differs between the versions this stand-in knows of."""
    if isinstance(obj, list):
        for v in obj:
            render_version(v, version)
    elif isinstance(obj, dict):
        if obj.get("object") == "checkout.session" and obj.get("ui_mode") in ("hosted",
                                                                              "hosted_page"):
            obj["ui_mode"] = ("hosted_page" if version_date(version) >= UI_MODE_RENAMED_IN
                              else "hosted")
        for v in obj.values():
            if isinstance(v, (dict, list)):
                render_version(v, version)
    return obj


class Ctx:
    """Who is calling: account, mode, API version, and the request's ids."""

    def __init__(self, account, livemode, version, request_id=None, idempotency_key=None):
        self.account = account
        self.livemode = livemode
        self.version = version
        self.request_id = request_id
        self.idempotency_key = idempotency_key

    def request_ref(self):
        return {"id": self.request_id, "idempotency_key": self.idempotency_key}


NO_REQUEST = {"id": None, "idempotency_key": None}


# ---------------------------------------------------------------------------------------------
# Webhook delivery


def sign(secret, timestamp, payload):
    return hmac.new(secret.encode("utf-8"), ("%d.%s" % (timestamp, payload)).encode("utf-8"),
                    hashlib.sha256).hexdigest()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # Stripe treats a redirect as a failed delivery


_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())


class Deliverer(threading.Thread):
    """One background thread that POSTs events, in the order they are due."""

    def __init__(self, app):
        super().__init__(name="webhook-deliverer", daemon=True)
        self.app = app
        self.cond = threading.Condition()
        self.heap = []
        self.seq = itertools.count()
        self.stopping = False
        self.busy = 0

    def schedule(self, delivery, delay=0.0):
        with self.cond:
            heapq.heappush(self.heap, (time.monotonic() + delay, next(self.seq), delivery))
            self.cond.notify()

    def clear(self):
        with self.cond:
            self.heap.clear()

    def stop(self):
        with self.cond:
            self.stopping = True
            self.cond.notify()

    def run(self):
        while True:
            with self.cond:
                while not self.stopping and (not self.heap
                                             or self.heap[0][0] > time.monotonic()):
                    self.cond.wait(None if not self.heap
                                   else max(0.0, self.heap[0][0] - time.monotonic()))
                if self.stopping:
                    return
                _, _, delivery = heapq.heappop(self.heap)
                self.busy += 1
            try:
                self.app.attempt_delivery(delivery)
            except Exception:
                traceback.print_exc()
            finally:
                with self.cond:
                    self.busy -= 1


# ---------------------------------------------------------------------------------------------
# The stand-in


class StandIn:
    def __init__(self, public_base=None, verbose=False):
        self.lock = threading.RLock()
        self.public_base = public_base
        self.verbose = verbose
        self.deliverer = Deliverer(self)
        self.reset()

    # -- state ------------------------------------------------------------------------------

    def reset(self):
        with self.lock:
            self.generation = getattr(self, "generation", 0) + 1
            self.accounts = {}
            self.keys = {}            # api key -> (account id, livemode, "secret"|"publishable")
            self.objects = {}         # id -> object (with private `_account`, `_livemode`)
            self.idempotency = {}     # (account, livemode, key) -> saved result
            self.requests = []
            self.request_seq = 0
            self.events = []          # event ids, oldest first
            self.held = []
            self.delivery_seq = 0
            self.webhook_mode = "deliver"
            self.refund_mode = "succeeded"
            self.down = False
            self.deliverer.clear()

    def new_account(self, livemode=False, api_version=None, name=None, currency=None):
        acct = "acct_1" + rand(15)
        account = {
            "id": acct,
            "name": name or "Stand-in merchant",
            "api_version": api_version or DEFAULT_API_VERSION,
            "default_currency": currency or "eur",
            "test": {"secret_key": "sk_test_51" + rand(40),
                     "publishable_key": "pk_test_51" + rand(40)},
            "live": {"secret_key": "sk_live_51" + rand(40),
                     "publishable_key": "pk_live_51" + rand(40)},
        }
        self.accounts[acct] = account
        for mode_name, live in (("test", False), ("live", True)):
            self.keys[account[mode_name]["secret_key"]] = (acct, live, "secret")
            self.keys[account[mode_name]["publishable_key"]] = (acct, live, "publishable")
        mine = account["live" if livemode else "test"]
        return {"account": acct, "livemode": bool(livemode), "api_version": account["api_version"],
                "secret_key": mine["secret_key"], "publishable_key": mine["publishable_key"],
                "test": dict(account["test"]), "live": dict(account["live"])}

    def store(self, ctx, obj):
        obj["_account"] = ctx.account
        obj["_livemode"] = ctx.livemode
        self.objects[obj["id"]] = obj
        return obj

    def get(self, ctx, kind, ident, param="id", status=404):
        obj = self.objects.get(ident) if isinstance(ident, str) else None
        if obj is None or obj.get("object") != kind or obj["_account"] != ctx.account:
            raise no_such(kind, ident, param, status)
        if obj["_livemode"] != ctx.livemode:
            raise no_such(kind, ident, param, status, other_mode=obj["_livemode"])
        return obj

    def ctx_of(self, obj, request=None):
        acct = self.accounts[obj["_account"]]
        ctx = Ctx(obj["_account"], obj["_livemode"], acct["api_version"])
        return ctx

    def public_url(self, path):
        return self.public_base.rstrip("/") + path

    # -- events -----------------------------------------------------------------------------

    def emit(self, ctx, type_, obj, request=None, previous=None):
        acct = self.accounts[ctx.account]
        data = {"object": public(obj)}
        if previous is not None:
            data["previous_attributes"] = previous
        event = {
            "id": "evt_" + rand(24),
            "object": "event",
            "api_version": acct["api_version"],
            "created": now(),
            "data": data,
            "livemode": ctx.livemode,
            "pending_webhooks": 0,
            "request": request or dict(NO_REQUEST),
            "type": type_,
            "_deliveries": [],
        }
        self.store(ctx, event)
        self.events.append(event["id"])
        for ep in self.endpoints_for(ctx.account, ctx.livemode, type_):
            self.new_delivery(event, ep)
        return event

    def endpoints_for(self, account, livemode, type_):
        eps = [o for o in self.objects.values()
               if o.get("object") == "webhook_endpoint" and o["_account"] == account
               and o["_livemode"] == livemode and o["status"] == "enabled"]
        eps.sort(key=lambda o: o["_seq"])
        return [e for e in eps if "*" in e["enabled_events"] or type_ in e["enabled_events"]]

    def new_delivery(self, event, endpoint):
        self.delivery_seq += 1
        d = {"id": "dlv_%d" % self.delivery_seq, "event": event["id"],
             "endpoint": endpoint["id"], "url": endpoint["url"], "status": "pending",
             "attempts": [], "_gen": self.generation}
        event["_deliveries"].append(d)
        self.deliverer.schedule(d)
        return d

    def pending_webhooks(self, event):
        return sum(1 for d in event["_deliveries"] if d["status"] != "succeeded")

    def render_event(self, event, version=None):
        out = public(event)
        out["pending_webhooks"] = self.pending_webhooks(event)
        if version:
            out["api_version"] = version
        render_version(out["data"], out["api_version"])
        return out

    def attempt_delivery(self, d):
        with self.lock:
            if d["_gen"] != self.generation:
                return
            event = self.objects.get(d["event"])
            ep = self.objects.get(d["endpoint"])
            if event is None:
                return
            if ep is None:
                d["attempts"].append({"at": now(), "status": None,
                                      "error": "the webhook endpoint was deleted"})
                d["status"] = "failed"
                return
            if self.webhook_mode == "hold":
                d["status"] = "held"
                self.held.append(d)
                return
            if self.webhook_mode == "fail":
                d["attempts"].append({"at": now(), "status": None,
                                      "error": "not delivered: webhooks are in 'fail' mode "
                                               "(as if the endpoint were unreachable)"})
                d["status"] = "failed"
                return
            payload = json.dumps(self.render_event(event, ep["api_version"]), indent=2,
                                 ensure_ascii=False)
            secret = ep["secret"]
            url = ep["url"]
            livemode = event["livemode"]
        t = now()
        header = "t=%d,v1=%s" % (t, sign(secret, t, payload))
        if not livemode:
            # Test-mode deliveries also carry a v0 signature (a legacy scheme) that verifiers
            # must ignore, as Stripe's do.
            header += ",v0=" + sign("whsec_" + secret[::-1], t, payload)
        req = urllib.request.Request(url, data=payload.encode("utf-8"), method="POST")
        req.add_header("Content-Type", "application/json; charset=utf-8")
        req.add_header("User-Agent", WEBHOOK_USER_AGENT)
        req.add_header("Stripe-Signature", header)
        req.add_header("Accept", "*/*; q=0.5, application/xml")
        req.add_header("Cache-Control", "no-cache")
        started = time.monotonic()
        status, error = None, None
        try:
            with _OPENER.open(req, timeout=WEBHOOK_TIMEOUT) as resp:
                status = resp.status
                resp.read(65536)
        except urllib.error.HTTPError as e:
            status = e.code
            error = "HTTP %d" % e.code
        except Exception as e:  # connection refused, timeout, ...
            error = "%s: %s" % (type(e).__name__, e)
        attempt = {"at": t, "status": status, "error": error,
                   "duration_ms": int((time.monotonic() - started) * 1000)}
        with self.lock:
            if d["_gen"] != self.generation:
                return
            d["attempts"].append(attempt)
            if status is not None and 200 <= status < 300:
                d["status"] = "succeeded"
            elif len(d["attempts"]) < WEBHOOK_TRIES:
                d["status"] = "pending"
                self.deliverer.schedule(d, WEBHOOK_BACKOFF[len(d["attempts"]) - 1])
            else:
                d["status"] = "failed"
        if self.verbose:
            print("webhook %s %s -> %s" % (d["event"], url, status or error), file=sys.stderr)

    # -- the Stripe API ---------------------------------------------------------------------

    def handle_api(self, method, path, query, body, headers):
        request_id = "req_" + rand(14)
        entry = {
            "request_id": request_id, "time": now(), "method": method, "path": path,
            "query": query, "stripe_version": headers.get("Stripe-Version"),
            "idempotency_key": headers.get("Idempotency-Key"),
            "user_agent": headers.get("User-Agent"),
            "content_type": headers.get("Content-Type"),
            "account": None, "livemode": None, "params": None, "status": None,
            "replayed": False,
        }
        with self.lock:
            self.request_seq += 1
            entry["seq"] = self.request_seq
            self.requests.append(entry)
        try:
            resp = self._api(method, path, query, body, headers, request_id, entry)
        except StripeError as e:
            resp = json_response(e.status, e.body())
        except Exception:
            traceback.print_exc()
            resp = json_response(500, {"error": {
                "message": "An unknown error occurred in the Stripe stand-in.",
                "type": "api_error"}})
        resp.headers.append(("Request-Id", request_id))
        with self.lock:
            entry["status"] = resp.status
        return resp

    def authenticate(self, headers):
        auth = headers.get("Authorization")
        if not auth:
            raise StripeError(
                401, "You did not provide an API key. You need to provide your API key in the "
                "Authorization header, using Bearer auth (e.g. 'Authorization: Bearer "
                "YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for "
                "details, or we can help at https://support.stripe.com/.")
        key = ""
        scheme, _, cred = auth.strip().partition(" ")
        if scheme.lower() == "bearer":
            key = cred.strip()
        elif scheme.lower() == "basic":
            try:
                key = base64.b64decode(cred.strip()).decode("utf-8").partition(":")[0]
            except Exception:
                key = ""
        with self.lock:
            found = self.keys.get(key)
        if found is None:
            raise StripeError(401, "Invalid API Key provided: %s" % mask_key(key))
        acct, livemode, kind = found
        if kind == "publishable":
            raise StripeError(
                401, "This API call cannot be made with a publishable API key. Please use a "
                "secret API key. You can find a list of your API keys at "
                "https://dashboard.stripe.com/account/apikeys.")
        return acct, livemode

    def _api(self, method, path, query, body, headers, request_id, entry):
        with self.lock:
            down = self.down
        if down:
            return json_response(503, {"error": {
                "message": "The Stripe stand-in is down (POST /_standin/down): Stripe could "
                           "not be reached.", "type": "api_error"}})
        acct, livemode = self.authenticate(headers)
        with self.lock:
            entry["account"], entry["livemode"] = acct, livemode
            default_version = self.accounts[acct]["api_version"]
        version = headers.get("Stripe-Version") or default_version
        if not VERSION_RE.match(version):
            raise StripeError(400, "Invalid Stripe API version: %s" % version)
        try:
            params = parse_form(query)
            if method == "POST":
                if "json" in (headers.get("Content-Type") or "").lower():
                    raise StripeError(
                        400, "Invalid request (check that your POST content type is "
                        "application/x-www-form-urlencoded). If you have any questions, we can "
                        "help at https://support.stripe.com/.")
                params.update(parse_form(body.decode("utf-8")))
        except (FormError, UnicodeDecodeError, ValueError) as e:
            raise StripeError(400, str(e) if isinstance(e, FormError) else
                              "Invalid request: the body is not UTF-8 form data.")
        with self.lock:
            entry["params"] = params
        handler, args = self.route(method, path)
        idem_key = headers.get("Idempotency-Key") if method == "POST" else None
        ctx = Ctx(acct, livemode, version, request_id, idem_key)
        extra = [("Stripe-Version", version)]
        if idem_key:
            extra.append(("Idempotency-Key", idem_key))
        with self.lock:
            if idem_key:
                scope = (acct, livemode, idem_key)
                saved = self.idempotency.get(scope)
                if saved is not None:
                    if saved["method"] != method or saved["path"] != path:
                        raise StripeError(
                            400, "Keys for idempotent requests can only be used for the same "
                            "endpoint they were first used for ('%s %s' vs '%s %s'). Try using "
                            "a key other than '%s' if you meant to execute a different request."
                            % (saved["method"], saved["path"], method, path, idem_key),
                            type="idempotency_error")
                    if saved["params"] != params:
                        raise StripeError(
                            400, "Keys for idempotent requests can only be used with the same "
                            "parameters they were first used with. Try using a key other than "
                            "'%s' if you meant to execute a different request." % idem_key,
                            type="idempotency_error")
                    entry["replayed"] = True
                    return Response(saved["status"], saved["body"], "application/json",
                                    saved["headers"] + [("Idempotent-Replayed", "true"),
                                                        ("Original-Request",
                                                         saved["request_id"])])
            try:
                status, obj = handler(ctx, params, *args)
                resp = json_response(status, obj, extra)
                keep = True
            except StripeError as e:
                resp = json_response(e.status, e.body(), extra)
                keep = e.saved
            if idem_key and keep:
                self.idempotency[(acct, livemode, idem_key)] = {
                    "method": method, "path": path, "params": params, "status": resp.status,
                    "body": resp.body, "headers": list(extra), "request_id": request_id}
            return resp

    def route(self, method, path):
        for m, pattern, fn in self.ROUTES:
            if m != method:
                continue
            match = re.fullmatch(pattern, path)
            if match:
                return getattr(self, fn), match.groups()
        raise StripeError(404, "Unrecognized request URL (%s: %s). Please see "
                          "https://stripe.com/docs or we can help at "
                          "https://support.stripe.com/." % (method, path))

    ROUTES = [
        ("GET", r"/v1/balance", "api_balance"),
        ("GET", r"/v1/balance_transactions/([^/]+)", "api_get_balance_transaction"),
        ("POST", r"/v1/checkout/sessions", "api_create_session"),
        ("GET", r"/v1/checkout/sessions", "api_list_sessions"),
        ("GET", r"/v1/checkout/sessions/([^/]+)", "api_get_session"),
        ("GET", r"/v1/checkout/sessions/([^/]+)/line_items", "api_session_line_items"),
        ("POST", r"/v1/checkout/sessions/([^/]+)/expire", "api_expire_session"),
        ("GET", r"/v1/payment_intents/([^/]+)", "api_get_payment_intent"),
        ("GET", r"/v1/charges/([^/]+)", "api_get_charge"),
        ("POST", r"/v1/refunds", "api_create_refund"),
        ("GET", r"/v1/refunds", "api_list_refunds"),
        ("GET", r"/v1/refunds/([^/]+)", "api_get_refund"),
        ("POST", r"/v1/webhook_endpoints", "api_create_webhook_endpoint"),
        ("GET", r"/v1/webhook_endpoints", "api_list_webhook_endpoints"),
        ("GET", r"/v1/webhook_endpoints/([^/]+)", "api_get_webhook_endpoint"),
        ("DELETE", r"/v1/webhook_endpoints/([^/]+)", "api_delete_webhook_endpoint"),
        ("GET", r"/v1/events", "api_list_events"),
        ("GET", r"/v1/events/([^/]+)", "api_get_event"),
    ]

    # -- rendering and expansion ------------------------------------------------------------

    def render(self, ctx, obj, expand=None):
        out = public(obj)
        if obj.get("object") == "event":
            out = self.render_event(obj)
        for path in expand or []:
            if not isinstance(path, str) or not path:
                raise StripeError(400, "Invalid array", param="expand")
            if path.count(".") >= 4:
                raise StripeError(400, "You cannot expand more than 4 levels of a property. "
                                  "Property: %s" % path, param="expand")
            self.expand(ctx, out, path.split("."), path)
        return render_version(out, ctx.version)

    EXPANDABLE = {
        "checkout.session": {"payment_intent": "payment_intent", "customer": None,
                             "invoice": None, "payment_link": None, "setup_intent": None,
                             "subscription": None, "line_items": "@line_items"},
        "payment_intent": {"latest_charge": "charge", "customer": None,
                           "payment_method": None, "application": None,
                           "on_behalf_of": None, "review": None},
        "charge": {"payment_intent": "payment_intent",
                   "balance_transaction": "balance_transaction", "customer": None,
                   "refunds": "@refunds", "application": None, "application_fee": None,
                   "on_behalf_of": None, "review": None, "payment_method": None},
        "refund": {"charge": "charge", "payment_intent": "payment_intent",
                   "balance_transaction": "balance_transaction",
                   "failure_balance_transaction": "balance_transaction"},
        "list": {"data": "@data"},
    }

    def expand(self, ctx, node, segs, full):
        if node is None:
            return
        kind = node.get("object")
        field = segs[0]
        allowed = self.EXPANDABLE.get(kind, {})
        if field not in allowed:
            raise StripeError(400, "This property cannot be expanded (%s)." % full)
        target = allowed[field]
        if target == "@data":
            for item in node.get("data", []):
                if len(segs) > 1:
                    self.expand(ctx, item, segs[1:], full)
            return
        if target == "@line_items":
            node["line_items"] = self.line_items_list(self.objects[node["id"]])
        elif target == "@refunds":
            node["refunds"] = self.refunds_list(ctx, node["id"])
        else:
            value = node.get(field)
            if isinstance(value, str):
                if target is None:
                    raise StripeError(400, "The Stripe stand-in cannot expand %s (it does not "
                                      "model that object)." % full)
                node[field] = public(self.get(ctx, target, value))
        if len(segs) > 1:
            self.expand(ctx, node.get(field), segs[1:], full)

    def line_items_list(self, session):
        return {"object": "list", "data": public(session["_line_items"]), "has_more": False,
                "url": "/v1/checkout/sessions/%s/line_items" % session["id"]}

    def refunds_list(self, ctx, charge_id):
        refunds = [o for o in self.objects.values()
                   if o.get("object") == "refund" and o["charge"] == charge_id]
        refunds.sort(key=lambda o: o["_seq"], reverse=True)
        return {"object": "list", "data": public(refunds), "has_more": False,
                "url": "/v1/charges/%s/refunds" % charge_id}

    def paginate(self, ctx, items, params, url, expand):
        limit = get_int(params, "limit", minimum=1, maximum=100)
        limit = 10 if limit is None else limit
        items = sorted(items, key=lambda o: o["_seq"], reverse=True)
        after = get_str(params, "starting_after")
        before = get_str(params, "ending_before")
        ids = [o["id"] for o in items]
        if after is not None:
            if after not in ids:
                raise no_such(self.kind_name(items, url), after, "starting_after", 400)
            items = items[ids.index(after) + 1:]
        elif before is not None:
            if before not in ids:
                raise no_such(self.kind_name(items, url), before, "ending_before", 400)
            items = items[:ids.index(before)]
            items = items[-limit:]
        page = items[:limit]
        out = {"object": "list", "data": [public(o) for o in page],
               "has_more": len(items) > len(page), "url": url}
        for i, o in enumerate(page):
            if o.get("object") == "event":
                out["data"][i] = self.render_event(o)
        for path in expand or []:
            self.expand(ctx, out, path.split("."), path)
        if url == "/v1/events":
            return out  # events keep the version they were rendered in
        return render_version(out, ctx.version)

    @staticmethod
    def kind_name(items, url):
        return {"/v1/checkout/sessions": "checkout.session", "/v1/refunds": "refund",
                "/v1/events": "event", "/v1/webhook_endpoints": "webhook_endpoint"}.get(url,
                                                                                       "object")

    def owned(self, ctx, kind):
        return [o for o in self.objects.values()
                if o.get("object") == kind and o["_account"] == ctx.account
                and o["_livemode"] == ctx.livemode]

    # -- balance ----------------------------------------------------------------------------

    def api_balance(self, ctx, params):
        check_known(params, {"expand"})
        pending = {}
        for txn in self.owned(ctx, "balance_transaction"):
            pending[txn["currency"]] = pending.get(txn["currency"], 0) + txn["net"]
        default = self.accounts[ctx.account]["default_currency"]
        currencies = sorted(set(pending) | {default})
        return 200, {
            "object": "balance",
            "available": [{"amount": 0, "currency": c, "source_types": {"card": 0}}
                          for c in currencies],
            "livemode": ctx.livemode,
            "pending": [{"amount": pending.get(c, 0), "currency": c,
                         "source_types": {"card": pending.get(c, 0)}} for c in currencies],
        }

    def api_get_balance_transaction(self, ctx, params, ident):
        check_known(params, {"expand"})
        return 200, self.render(ctx, self.get(ctx, "balance_transaction", ident),
                                get_list(params, "expand"))

    def balance_transaction(self, ctx, source, amount, currency, type_, fee=0):
        created = now()
        txn = {
            "id": "txn_" + rand(24), "object": "balance_transaction", "amount": amount,
            "available_on": created + 7 * 86400, "created": created, "currency": currency,
            "description": None, "exchange_rate": None, "fee": fee,
            "fee_details": ([{"amount": fee, "application": None, "currency": currency,
                              "description": "Stripe processing fees", "type": "stripe_fee"}]
                            if fee else []),
            "net": amount - fee, "reporting_category": type_, "source": source,
            "status": "pending", "type": type_, "_seq": self.next_seq(),
        }
        return self.store(ctx, txn)

    def next_seq(self):
        self._obj_seq = getattr(self, "_obj_seq", 0) + 1
        return self._obj_seq

    # -- Checkout Sessions ------------------------------------------------------------------

    def api_create_session(self, ctx, params):
        check_known(params, CHECKOUT_CREATE_PARAMS)
        for name in sorted(CHECKOUT_NOT_IMPLEMENTED & set(params)):
            raise not_implemented(name)
        for name in sorted(CHECKOUT_ONLY_DISABLED & set(params)):
            if isinstance(params[name], dict) and params[name].get("enabled") == "true":
                raise not_implemented(name + "[enabled]")
        expand = get_list(params, "expand")
        mode = get_enum(params, "mode", ("payment", "setup", "subscription"), required=True)
        if mode != "payment":
            raise StripeError(400, "The Stripe stand-in implements mode=payment only.",
                              param="mode")
        hosted = "hosted_page" if version_date(ctx.version) >= UI_MODE_RENAMED_IN else "hosted"
        modes = (("hosted_page", "embedded_page", "elements", "form") if hosted == "hosted_page"
                 else ("hosted", "embedded", "custom"))
        ui_mode = get_enum(params, "ui_mode", modes) or hosted
        if ui_mode != hosted:
            raise StripeError(400, "The Stripe stand-in implements ui_mode=%s only." % hosted,
                              param="ui_mode")
        if "return_url" in params:
            raise StripeError(400, "`return_url` can only be used with ui_mode `%s`."
                              % one_of(m for m in modes if m != hosted and m != "form"),
                              param="return_url")
        success_url = get_url(params, "success_url", required=True)
        cancel_url = get_url(params, "cancel_url")
        client_reference_id = get_str(params, "client_reference_id", max_len=200)
        customer_email = get_str(params, "customer_email", max_len=800)
        if customer_email is not None and not EMAIL_RE.match(customer_email):
            raise StripeError(400, "Invalid email address: %s" % customer_email,
                              code="email_invalid", param="customer_email")
        customer = get_str(params, "customer")
        if customer is not None:
            raise no_such("customer", customer, "customer", 400)
        if get_str(params, "customer_creation") not in (None, "always", "if_required"):
            raise StripeError(400, "Invalid customer_creation: must be one of always or "
                              "if_required", param="customer_creation")
        metadata = get_metadata(params)
        locale = get_str(params, "locale")
        created = now()
        expires_at = get_int(params, "expires_at")
        if expires_at is None:
            expires_at = created + SESSION_LIFETIME
        elif expires_at > created + SESSION_LIFETIME:
            raise StripeError(400, "The `expires_at` timestamp must be less than 24 hours from "
                              "Checkout Session creation.", param="expires_at")
        elif expires_at < created + SESSION_MIN_LIFETIME:
            raise StripeError(400, "The `expires_at` timestamp must be at least 30 minutes "
                              "from Checkout Session creation.", param="expires_at")
        pi_data = params.get("payment_intent_data", {})
        if pi_data == "":
            pi_data = {}
        check_known(pi_data, PAYMENT_INTENT_DATA_PARAMS, "payment_intent_data")
        pi_metadata = get_metadata(pi_data, "metadata", "payment_intent_data")
        pi_description = get_str(pi_data, "description", "payment_intent_data", max_len=1000)
        pi_receipt_email = get_str(pi_data, "receipt_email", "payment_intent_data")
        capture = get_enum(pi_data, "capture_method", ("automatic", "automatic_async", "manual"),
                           "payment_intent_data")
        if capture == "manual":
            raise StripeError(400, "The Stripe stand-in does not implement manual capture.",
                              param="payment_intent_data[capture_method]")
        pm_types = get_list(params, "payment_method_types")
        line_items = get_list(params, "line_items")
        if not line_items:
            raise missing("line_items")
        if len(line_items) > 100:
            raise StripeError(400, "You may only specify up to 100 line items.",
                              param="line_items")
        items, currency, subtotal = [], None, 0
        for i, li in enumerate(line_items):
            prefix = "line_items[%d]" % i
            check_known(li, LINE_ITEM_PARAMS, prefix)
            price_id = get_str(li, "price", prefix)
            if price_id is not None:
                raise no_such("price", price_id, prefix + "[price]", 400)
            pd = li.get("price_data")
            if pd is None:
                raise StripeError(400, "You must specify either `price` or `price_data` in "
                                  "each line item.", param=prefix)
            pprefix = prefix + "[price_data]"
            check_known(pd, PRICE_DATA_PARAMS, pprefix)
            cur = check_currency(get_str(pd, "currency", pprefix, required=True),
                                 pprefix + "[currency]")
            if "recurring" in pd:
                raise StripeError(400, "You specified `payment` mode but passed a recurring "
                                  "price. Either switch to `subscription` mode or use only "
                                  "one-time prices.", param=pprefix + "[recurring]")
            product = get_str(pd, "product", pprefix)
            if product is not None:
                raise no_such("product", product, pprefix + "[product]", 400)
            prod = pd.get("product_data")
            if prod is None:
                raise StripeError(400, "You must specify either `product` or `product_data` "
                                  "when creating a price.", param=pprefix)
            dprefix = pprefix + "[product_data]"
            check_known(prod, PRODUCT_DATA_PARAMS, dprefix)
            name = get_str(prod, "name", dprefix, required=True, max_len=5000)
            description = get_str(prod, "description", dprefix, max_len=40000)
            product_metadata = get_metadata(prod, "metadata", dprefix)
            if "unit_amount" in pd and "unit_amount_decimal" in pd:
                raise StripeError(400, "You may only specify one of these parameters: "
                                  "unit_amount, unit_amount_decimal.", param=pprefix)
            if "unit_amount_decimal" in pd:
                raw = get_str(pd, "unit_amount_decimal", pprefix, required=True)
                try:
                    dec = decimal.Decimal(raw)
                    if not dec.is_finite() or dec < 0 or -dec.as_tuple().exponent > 12:
                        raise decimal.InvalidOperation
                except decimal.InvalidOperation:
                    raise StripeError(400, "Invalid decimal: %s" % raw,
                                      param=pprefix + "[unit_amount_decimal]")
                unit_amount, unit_decimal = None, raw
            else:
                unit_amount = get_int(pd, "unit_amount", pprefix, required=True, minimum=0,
                                      maximum=MAX_AMOUNT)
                check_minor_units(unit_amount, cur, pprefix + "[unit_amount]")
                dec, unit_decimal = decimal.Decimal(unit_amount), str(unit_amount)
            quantity = get_int(li, "quantity", prefix, required=True, minimum=1,
                               maximum=999999)
            if currency is None:
                currency = cur
            elif cur != currency:
                raise StripeError(400, "Checkout does not support line items with different "
                                  "currencies in one session (%s and %s)." % (currency, cur),
                                  param=pprefix + "[currency]")
            amount = int((dec * quantity).to_integral_value(decimal.ROUND_HALF_UP))
            subtotal += amount
            price = {
                "id": "price_1" + rand(23), "object": "price", "active": False,
                "billing_scheme": "per_unit", "created": created, "currency": cur,
                "custom_unit_amount": None, "livemode": ctx.livemode, "lookup_key": None,
                "metadata": {}, "nickname": None, "product": "prod_" + rand(14),
                "recurring": None, "tax_behavior": get_str(pd, "tax_behavior", pprefix)
                or "unspecified", "tiers_mode": None, "transform_quantity": None,
                "type": "one_time", "unit_amount": unit_amount,
                "unit_amount_decimal": unit_decimal,
            }
            items.append({
                "id": "li_1" + rand(23), "object": "item", "amount_discount": 0,
                "amount_subtotal": amount, "amount_tax": 0, "amount_total": amount,
                "currency": cur, "description": name, "price": price, "quantity": quantity,
                "_product": {"name": name, "description": description,
                             "metadata": product_metadata},
            })
        check_minor_units(subtotal, currency, "line_items")
        minimum = MINIMUM_AMOUNT.get(currency, 1)
        if subtotal < minimum:
            raise StripeError(400, "The Checkout Session's total amount due must add up to at "
                              "least %s %s" % (format_amount(minimum, currency), currency))
        if subtotal > MAX_AMOUNT:
            raise StripeError(400, "The Checkout Session's total amount due must be no more "
                              "than %s %s" % (format_amount(MAX_AMOUNT, currency), currency),
                              code="amount_too_large")
        sid = ("cs_live_" if ctx.livemode else "cs_test_") + "a1" + rand(56)
        session = {
            "id": sid, "object": "checkout.session", "after_expiration": None,
            "allow_promotion_codes": None, "amount_subtotal": subtotal,
            "amount_total": subtotal,
            "automatic_tax": {"enabled": False, "liability": None, "status": None},
            "billing_address_collection": None, "cancel_url": cancel_url,
            "client_reference_id": client_reference_id, "client_secret": None,
            "consent": None, "consent_collection": None, "created": created,
            "currency": currency, "currency_conversion": None, "custom_fields": [],
            "custom_text": {"after_submit": None, "shipping_address": None, "submit": None,
                            "terms_of_service_acceptance": None},
            "customer": None,
            "customer_creation": get_str(params, "customer_creation") or "if_required",
            "customer_details": None, "customer_email": customer_email,
            "expires_at": expires_at, "invoice": None, "invoice_creation": None,
            "livemode": ctx.livemode, "locale": locale, "metadata": metadata,
            "mode": "payment", "payment_intent": None, "payment_link": None,
            "payment_method_collection": "if_required",
            "payment_method_configuration_details": None, "payment_method_options": {},
            "payment_method_types": [str(t) for t in pm_types] if pm_types else
            (["card", "sepa_debit"] if currency == "eur" else ["card"]),
            "payment_status": "unpaid", "phone_number_collection": {"enabled": False},
            "recovered_from": None, "saved_payment_method_options": None,
            "setup_intent": None, "shipping_address_collection": None, "shipping_cost": None,
            "shipping_options": [], "status": "open",
            "submit_type": get_str(params, "submit_type"), "subscription": None,
            "success_url": success_url,
            "total_details": {"amount_discount": 0, "amount_shipping": 0, "amount_tax": 0},
            "ui_mode": "hosted", "url": self.public_url("/c/pay/" + sid),
            "_line_items": items, "_seq": self.next_seq(),
            "_pi_data": {"metadata": pi_metadata, "description": pi_description,
                         "receipt_email": pi_receipt_email,
                         "capture_method": capture or "automatic_async"},
            "_error": None,
        }
        self.store(ctx, session)
        return 200, self.render(ctx, session, expand)

    def api_list_sessions(self, ctx, params):
        check_known(params, LIST_PARAMS | {"customer", "customer_details", "payment_intent",
                                           "payment_link", "status", "subscription"})
        sessions = self.owned(ctx, "checkout.session")
        pi = get_str(params, "payment_intent")
        status = get_enum(params, "status", ("complete", "expired", "open"))
        if pi is not None:
            sessions = [s for s in sessions if s["payment_intent"] == pi]
        if status is not None:
            sessions = [s for s in sessions if s["status"] == status]
        return 200, self.paginate(ctx, sessions, params, "/v1/checkout/sessions",
                                  get_list(params, "expand"))

    def api_get_session(self, ctx, params, ident):
        check_known(params, {"expand"})
        session = self.get(ctx, "checkout.session", ident)
        return 200, self.render(ctx, session, get_list(params, "expand"))

    def api_session_line_items(self, ctx, params, ident):
        check_known(params, LIST_PARAMS)
        session = self.get(ctx, "checkout.session", ident)
        return 200, render_version(self.line_items_list(session), ctx.version)

    def api_expire_session(self, ctx, params, ident):
        check_known(params, {"expand"})
        session = self.get(ctx, "checkout.session", ident)
        if session["status"] != "open":
            raise StripeError(400, "Only Checkout Sessions with a status in [\"open\"] can be "
                              "expired. This Checkout Session has a status of `%s`."
                              % session["status"], saved=True)
        self.expire_session(session, ctx.request_ref())
        return 200, self.render(ctx, session, get_list(params, "expand"))

    def expire_session(self, session, request=None):
        session["status"] = "expired"
        session["url"] = None
        self.emit(self.ctx_of(session), "checkout.session.expired", session, request)

    # -- payments (the hosted page and the control API) ----------------------------------------

    def payment_intent_for(self, session):
        ctx = self.ctx_of(session)
        if session["payment_intent"]:
            return self.objects[session["payment_intent"]], False
        pi_data = session["_pi_data"]
        pi_id = "pi_3" + rand(23)
        pi = {
            "id": pi_id, "object": "payment_intent", "amount": session["amount_total"],
            "amount_capturable": 0, "amount_details": {"tip": {}}, "amount_received": 0,
            "application": None, "application_fee_amount": None,
            "automatic_payment_methods": None, "canceled_at": None,
            "cancellation_reason": None, "capture_method": pi_data["capture_method"],
            "client_secret": pi_id + "_secret_" + rand(25), "confirmation_method": "automatic",
            "created": now(), "currency": session["currency"], "customer": None,
            "description": pi_data["description"], "last_payment_error": None,
            "latest_charge": None, "livemode": session["livemode"],
            "metadata": dict(pi_data["metadata"]), "next_action": None, "on_behalf_of": None,
            "payment_method": None, "payment_method_configuration_details": None,
            "payment_method_options": {}, "payment_method_types":
            list(session["payment_method_types"]), "processing": None,
            "receipt_email": pi_data["receipt_email"], "review": None,
            "setup_future_usage": None, "shipping": None, "source": None,
            "statement_descriptor": None, "statement_descriptor_suffix": None,
            "status": "requires_payment_method", "transfer_data": None,
            "transfer_group": None, "_seq": self.next_seq(),
        }
        self.store(ctx, pi)
        session["payment_intent"] = pi_id
        self.emit(ctx, "payment_intent.created", pi)
        return pi, True

    def new_charge(self, session, pi, email, method, status):
        ctx = self.ctx_of(session)
        pm_id = "pm_1" + rand(23)
        if method == "card":
            last4 = "0002" if status == "failed" else "4242"
            details = {"card": {"amount_authorization": None, "brand": "visa",
                                "checks": {"address_line1_check": None,
                                           "address_postal_code_check": None,
                                           "cvc_check": "pass"},
                                "country": "US", "exp_month": 12,
                                "exp_year": time.gmtime().tm_year + 3, "fingerprint": rand(16),
                                "funding": "credit", "last4": last4, "network": "visa",
                                "three_d_secure": None, "wallet": None},
                       "type": "card"}
        else:
            details = {"sepa_debit": {"bank_code": "37040044", "branch_code": None,
                                      "country": "DE", "fingerprint": rand(16),
                                      "last4": "3000", "mandate": "mandate_1" + rand(23)},
                       "type": "sepa_debit"}
        if status == "succeeded":
            outcome = {"network_status": "approved_by_network", "reason": None,
                       "risk_level": "normal", "risk_score": 20,
                       "seller_message": "Payment complete.", "type": "authorized"}
        elif status == "failed":
            outcome = {"network_status": "declined_by_network", "reason": "generic_decline",
                       "risk_level": "normal", "risk_score": 20,
                       "seller_message": "The bank did not return any further details with "
                                         "this decline.", "type": "issuer_declined"}
        else:
            outcome = {"network_status": "approved_by_network", "reason": None,
                       "risk_level": "not_assessed", "seller_message": "Payment pending.",
                       "type": "authorized"}
        ch = {
            "id": "ch_3" + rand(23), "object": "charge", "amount": pi["amount"],
            "amount_captured": pi["amount"] if status == "succeeded" else 0,
            "amount_refunded": 0, "application": None, "application_fee": None,
            "application_fee_amount": None, "balance_transaction": None,
            "billing_details": {"address": {"city": None, "country": None, "line1": None,
                                            "line2": None, "postal_code": None,
                                            "state": None},
                                "email": email, "name": None, "phone": None},
            "calculated_statement_descriptor": "STAND-IN", "captured": status != "failed",
            "created": now(), "currency": pi["currency"], "customer": None,
            "description": pi["description"], "disputed": False,
            "failure_balance_transaction": None,
            "failure_code": "card_declined" if status == "failed" else None,
            "failure_message": "Your card was declined." if status == "failed" else None,
            "fraud_details": {}, "livemode": pi["livemode"], "metadata": dict(pi["metadata"]),
            "on_behalf_of": None, "outcome": outcome, "paid": status == "succeeded",
            "payment_intent": pi["id"], "payment_method": pm_id,
            "payment_method_details": details, "radar_options": {},
            "receipt_email": pi["receipt_email"], "receipt_number": None,
            "receipt_url": None, "refunded": False, "review": None, "shipping": None,
            "source": None, "source_transfer": None, "statement_descriptor": None,
            "statement_descriptor_suffix": None, "status": status, "transfer_data": None,
            "transfer_group": None, "_seq": self.next_seq(),
        }
        self.store(ctx, ch)
        if status == "succeeded":
            self.settle_charge(ctx, ch)
        pi["latest_charge"] = ch["id"]
        pi["payment_method"] = pm_id if status != "failed" else None
        if method not in pi["payment_method_types"]:
            pi["payment_method_types"].append(method)
        return ch

    def settle_charge(self, ctx, ch):
        card = ch["payment_method_details"]["type"] == "card"
        fee = (ch["amount"] * 15 + 500) // 1000 + 25 if card else min(35, ch["amount"])
        txn = self.balance_transaction(ctx, ch["id"], ch["amount"], ch["currency"], "charge",
                                       min(fee, ch["amount"]))
        ch["balance_transaction"] = txn["id"]

    def complete_session(self, session, email, payment_status):
        session["status"] = "complete"
        session["payment_status"] = payment_status
        session["url"] = None
        session["customer_details"] = {"address": None, "email": email, "name": None,
                                       "phone": None, "tax_exempt": "none", "tax_ids": []}

    def pay(self, session, email):
        ctx = self.ctx_of(session)
        pi, _ = self.payment_intent_for(session)
        ch = self.new_charge(session, pi, email, "card", "succeeded")
        pi["status"] = "succeeded"
        pi["amount_received"] = pi["amount"]
        pi["last_payment_error"] = None
        self.complete_session(session, email, "paid")
        self.emit(ctx, "charge.succeeded", ch)
        self.emit(ctx, "payment_intent.succeeded", pi)
        self.emit(ctx, "checkout.session.completed", session)

    def decline(self, session, email):
        ctx = self.ctx_of(session)
        pi, _ = self.payment_intent_for(session)
        ch = self.new_charge(session, pi, email, "card", "failed")
        pi["status"] = "requires_payment_method"
        pi["last_payment_error"] = {
            "charge": ch["id"], "code": "card_declined", "decline_code": "generic_decline",
            "doc_url": "https://stripe.com/docs/error-codes/card-declined",
            "message": "Your card was declined.", "type": "card_error"}
        session["_error"] = "Your card was declined."
        self.emit(ctx, "charge.failed", ch)
        self.emit(ctx, "payment_intent.payment_failed", pi)

    def pay_later(self, session, email):
        ctx = self.ctx_of(session)
        pi, _ = self.payment_intent_for(session)
        ch = self.new_charge(session, pi, email, "sepa_debit", "pending")
        pi["status"] = "processing"
        pi["last_payment_error"] = None
        self.complete_session(session, email, "unpaid")
        self.emit(ctx, "charge.pending", ch)
        self.emit(ctx, "payment_intent.processing", pi)
        self.emit(ctx, "checkout.session.completed", session)

    def settle_async(self, session, result):
        ctx = self.ctx_of(session)
        pi = self.objects.get(session["payment_intent"] or "")
        if (session["status"] != "complete" or session["payment_status"] != "unpaid"
                or pi is None or pi["status"] != "processing"):
            raise ControlError(409, "session %s has no delayed payment in progress"
                               % session["id"])
        ch = self.objects[pi["latest_charge"]]
        if result == "succeeded":
            ch["status"] = "succeeded"
            ch["paid"] = True
            ch["amount_captured"] = ch["amount"]
            self.settle_charge(ctx, ch)
            pi["status"] = "succeeded"
            pi["amount_received"] = pi["amount"]
            session["payment_status"] = "paid"
            self.emit(ctx, "charge.succeeded", ch)
            self.emit(ctx, "payment_intent.succeeded", pi)
            self.emit(ctx, "checkout.session.async_payment_succeeded", session)
        else:
            ch["status"] = "failed"
            ch["failure_code"] = "insufficient_funds"
            ch["failure_message"] = ("The customer's account has insufficient funds to cover "
                                     "this payment.")
            pi["status"] = "requires_payment_method"
            pi["payment_method"] = None
            pi["last_payment_error"] = {
                "charge": ch["id"], "code": "insufficient_funds",
                "doc_url": "https://stripe.com/docs/error-codes/insufficient-funds",
                "message": ch["failure_message"], "type": "card_error"}
            self.emit(ctx, "charge.failed", ch)
            self.emit(ctx, "payment_intent.payment_failed", pi)
            self.emit(ctx, "checkout.session.async_payment_failed", session)

    # -- PaymentIntents, Charges ------------------------------------------------------------

    def api_get_payment_intent(self, ctx, params, ident):
        check_known(params, {"expand", "client_secret"})
        return 200, self.render(ctx, self.get(ctx, "payment_intent", ident),
                                get_list(params, "expand"))

    def api_get_charge(self, ctx, params, ident):
        check_known(params, {"expand"})
        return 200, self.render(ctx, self.get(ctx, "charge", ident), get_list(params, "expand"))

    # -- Refunds ----------------------------------------------------------------------------

    def api_create_refund(self, ctx, params):
        check_known(params, REFUND_CREATE_PARAMS)
        expand = get_list(params, "expand")
        pi_id = get_str(params, "payment_intent")
        ch_id = get_str(params, "charge")
        if pi_id is None and ch_id is None:
            raise StripeError(400, "One of the following params should be provided for this "
                              "request: payment_intent or charge.", param="payment_intent")
        amount = get_int(params, "amount", minimum=1, maximum=MAX_AMOUNT)
        reason = get_enum(params, "reason", REFUND_REASONS)
        metadata = get_metadata(params)
        for unsupported in ("customer", "origin", "currency"):
            if unsupported in params:
                raise StripeError(400, "The Stripe stand-in does not implement refunds with "
                                  "`%s`." % unsupported, param=unsupported)
        pi = self.get(ctx, "payment_intent", pi_id, "payment_intent", 400) if pi_id else None
        ch = self.get(ctx, "charge", ch_id, "charge", 400) if ch_id else None
        if pi is not None:
            latest = self.objects.get(pi["latest_charge"] or "")
            if latest is None or latest["status"] != "succeeded":
                raise StripeError(400, "This PaymentIntent (%s) does not have a successful "
                                  "charge to refund." % pi["id"], saved=True)
            if ch is not None and ch["id"] != latest["id"]:
                raise StripeError(400, "Charge %s does not belong to PaymentIntent %s."
                                  % (ch["id"], pi["id"]), param="charge")
            ch = latest
        if ch["status"] != "succeeded":
            raise StripeError(400, "This charge (%s) cannot be refunded because it has not "
                              "succeeded." % ch["id"], param="charge", saved=True)
        remaining = ch["amount"] - ch["amount_refunded"]
        if remaining <= 0:
            raise StripeError(400, "Charge %s has already been refunded." % ch["id"],
                              code="charge_already_refunded", saved=True)
        if amount is None:
            amount = remaining
        check_minor_units(amount, ch["currency"], "amount")
        if amount > remaining:
            raise StripeError(400, "Refund amount (%s) is greater than unrefunded amount on "
                              "charge (%s)" % (format_amount(amount, ch["currency"]),
                                               format_amount(remaining, ch["currency"])),
                              param="amount", saved=True)
        card = ch["payment_method_details"]["type"] == "card"
        refund = {
            "id": "re_3" + rand(23), "object": "refund", "amount": amount,
            "balance_transaction": None, "charge": ch["id"], "created": now(),
            "currency": ch["currency"],
            "destination_details": ({"card": {"reference_status": "pending",
                                              "reference_type": "acquirer_reference_number",
                                              "type": "refund"}, "type": "card"}
                                    if card else {"type": "sepa_debit", "sepa_debit": {}}),
            "metadata": metadata, "payment_intent": ch["payment_intent"], "reason": reason,
            "receipt_number": None, "source_transfer_reversal": None,
            "status": self.refund_mode, "transfer_reversal": None, "_seq": self.next_seq(),
        }
        self.store(ctx, refund)
        txn = self.balance_transaction(ctx, refund["id"], -amount, ch["currency"], "refund")
        refund["balance_transaction"] = txn["id"]
        ch["amount_refunded"] += amount
        ch["refunded"] = ch["amount_refunded"] >= ch["amount"]
        request = ctx.request_ref()
        self.emit(ctx, "refund.created", refund, request)
        self.emit(ctx, "charge.refunded", ch, request)
        return 200, self.render(ctx, refund, expand)

    def move_refund(self, refund, status, failure_reason=None):
        ctx = self.ctx_of(refund)
        if refund["status"] != "pending":
            raise ControlError(409, "refund %s is %s, not pending" % (refund["id"],
                                                                        refund["status"]))
        previous = {"status": refund["status"]}
        refund["status"] = status
        ch = self.objects[refund["charge"]]
        if status == "failed":
            refund["failure_reason"] = failure_reason or "declined"
            txn = self.balance_transaction(ctx, refund["id"], refund["amount"],
                                           refund["currency"], "refund_failure")
            refund["failure_balance_transaction"] = txn["id"]
            previous.update({"failure_reason": None, "failure_balance_transaction": None})
            ch["amount_refunded"] -= refund["amount"]
            ch["refunded"] = ch["amount_refunded"] >= ch["amount"]
        self.emit(ctx, "refund.updated", refund, previous=previous)
        self.emit(ctx, "charge.refund.updated", refund, previous=previous)
        if status == "failed":
            self.emit(ctx, "refund.failed", refund)

    def api_list_refunds(self, ctx, params):
        check_known(params, LIST_PARAMS | {"charge", "payment_intent"})
        refunds = [r for r in self.owned(ctx, "refund")]
        if get_str(params, "charge"):
            refunds = [r for r in refunds if r["charge"] == params["charge"]]
        if get_str(params, "payment_intent"):
            refunds = [r for r in refunds if r["payment_intent"] == params["payment_intent"]]
        return 200, self.paginate(ctx, refunds, params, "/v1/refunds",
                                  get_list(params, "expand"))

    def api_get_refund(self, ctx, params, ident):
        check_known(params, {"expand"})
        return 200, self.render(ctx, self.get(ctx, "refund", ident), get_list(params, "expand"))

    # -- Webhook endpoints and events -------------------------------------------------------

    def api_create_webhook_endpoint(self, ctx, params):
        check_known(params, WEBHOOK_CREATE_PARAMS)
        url = get_str(params, "url", required=True, max_len=5000)
        parsed = urllib.parse.urlsplit(url)
        if not parsed.scheme:
            raise StripeError(400, "Invalid URL: An explicit scheme (such as https) must be "
                              "provided.", param="url", code="url_invalid")
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise StripeError(400, "Invalid URL: %s" % url, param="url", code="url_invalid")
        events = get_list(params, "enabled_events")
        if not events:
            raise missing("enabled_events")
        for i, e in enumerate(events):
            if not isinstance(e, str) or not (e == "*" or EVENT_TYPE_RE.match(e)):
                raise StripeError(400, "Invalid enabled_events[%d]: %s is not a valid event "
                                  "type" % (i, json.dumps(e)), param="enabled_events[%d]" % i)
        api_version = get_str(params, "api_version")
        if api_version is not None and not VERSION_RE.match(api_version):
            raise StripeError(400, "Invalid api_version: %s" % api_version, param="api_version")
        if "connect" in params and get_str(params, "connect") not in (None, "false"):
            raise StripeError(400, "The Stripe stand-in does not implement Connect endpoints.",
                              param="connect")
        if len(self.owned(ctx, "webhook_endpoint")) >= MAX_WEBHOOK_ENDPOINTS:
            raise StripeError(400, "You have reached the maximum of %d %s webhook endpoints."
                              % (MAX_WEBHOOK_ENDPOINTS, "live" if ctx.livemode else "test"),
                              saved=True)
        ep = {
            "id": "we_1" + rand(23), "object": "webhook_endpoint", "api_version": api_version,
            "application": None, "created": now(),
            "description": get_str(params, "description", max_len=5000),
            "enabled_events": [str(e) for e in events], "livemode": ctx.livemode,
            "metadata": get_metadata(params), "secret": "whsec_" + rand(32),
            "status": "enabled", "url": url, "_seq": self.next_seq(),
        }
        self.store(ctx, ep)
        out = self.render(ctx, ep, get_list(params, "expand"))
        return 200, out

    def endpoint_view(self, ctx, ep):
        out = self.render(ctx, ep)
        out.pop("secret", None)  # shown once, on creation
        return out

    def api_list_webhook_endpoints(self, ctx, params):
        check_known(params, LIST_PARAMS)
        page = self.paginate(ctx, self.owned(ctx, "webhook_endpoint"), params,
                             "/v1/webhook_endpoints", None)
        for ep in page["data"]:
            ep.pop("secret", None)
        return 200, page

    def api_get_webhook_endpoint(self, ctx, params, ident):
        check_known(params, {"expand"})
        return 200, self.endpoint_view(ctx, self.get(ctx, "webhook_endpoint", ident))

    def api_delete_webhook_endpoint(self, ctx, params, ident):
        check_known(params, set())
        ep = self.get(ctx, "webhook_endpoint", ident)
        del self.objects[ep["id"]]
        return 200, {"id": ep["id"], "object": "webhook_endpoint", "deleted": True}

    def api_list_events(self, ctx, params):
        check_known(params, LIST_PARAMS | {"type", "types", "delivery_success"})
        events = self.owned(ctx, "event")
        for e in events:
            e.setdefault("_seq", 0)
        type_ = get_str(params, "type")
        types = get_list(params, "types")
        if type_ is not None and types is not None:
            raise StripeError(400, "You may only specify one of these parameters: type, types.")
        if type_ is not None:
            if type_.endswith("*"):
                events = [e for e in events if e["type"].startswith(type_[:-1])]
            else:
                events = [e for e in events if e["type"] == type_]
        if types:
            events = [e for e in events if e["type"] in types]
        order = {eid: i for i, eid in enumerate(self.events)}
        for e in events:
            e["_seq"] = order.get(e["id"], 0)
        return 200, self.paginate(ctx, events, params, "/v1/events", get_list(params, "expand"))

    def api_get_event(self, ctx, params, ident):
        check_known(params, {"expand"})
        event = self.get(ctx, "event", ident)
        out = self.render_event(event)
        return 200, out

    # -- the hosted Checkout page -----------------------------------------------------------

    def handle_page(self, method, path, body):
        m = re.fullmatch(r"/c/pay/([A-Za-z0-9_]+)(?:/(pay|decline|pay_later|cancel))?/?", path)
        if not m:
            return page_response(404, "Page not found", "<h1>Page not found</h1>"
                                 "<p>There is no Checkout page at this address.</p>")
        sid, action = m.groups()
        with self.lock:
            session = self.objects.get(sid)
            if session is None or session.get("object") != "checkout.session":
                return page_response(404, "Checkout Session not found",
                                     "<h1>Something went wrong</h1><p>The page you were "
                                     "looking for could not be found.</p>")
            if method == "GET" and action is None:
                return self.checkout_page(session)
            if method != "POST" or action is None:
                return Response(405, b"Method Not Allowed\n", "text/plain; charset=utf-8",
                                [("Allow", "GET" if action is None else "POST")])
            form = {}
            try:
                form = dict(urllib.parse.parse_qsl(body.decode("utf-8"),
                                                   keep_blank_values=True))
            except (UnicodeDecodeError, ValueError):
                pass
            if action == "cancel":
                target = session["cancel_url"] or "/c/pay/" + sid
                return Response(303, b"", "text/plain", [("Location", target)])
            if session["status"] != "open":
                return self.checkout_page(session, status=409)
            email = session["customer_email"] or (form.get("email") or "").strip()
            if not EMAIL_RE.match(email):
                session["_error"] = None
                return self.checkout_page(session, email_error="Enter a valid email address.",
                                          email=email, status=400)
            if action == "decline":
                self.decline(session, email)
                return self.checkout_page(session, email=email)
            if action == "pay":
                self.pay(session, email)
            else:
                self.pay_later(session, email)
            target = session["success_url"].replace("{CHECKOUT_SESSION_ID}", session["id"])
            return Response(303, b"", "text/plain", [("Location", target)])

    def checkout_page(self, session, status=200, email_error=None, email=None):
        acct = self.accounts[session["_account"]]
        merchant = html.escape(acct["name"])
        cur = session["currency"]
        total = html.escape(format_amount(session["amount_total"], cur))
        test_badge = ("" if session["livemode"]
                      else '<p class="mode">Test mode: no real money moves.</p>')
        rows = "".join(
            "<tr><td>%s</td><td>%d</td><td class=\"amount\">%s</td></tr>"
            % (html.escape(li["description"]), li["quantity"],
               html.escape(format_amount(li["amount_total"], li["currency"])))
            for li in session["_line_items"])
        summary = (
            '<section aria-labelledby="summary-heading"><h2 id="summary-heading">Order summary'
            '</h2><table><thead><tr><th scope="col">Item</th><th scope="col">Quantity</th>'
            '<th scope="col" class="amount">Amount</th></tr></thead><tbody>%s</tbody><tfoot>'
            '<tr><th scope="row" colspan="2">Total due</th><td class="amount">'
            '<strong>%s</strong></td></tr></tfoot></table></section>' % (rows, total))
        if session["status"] != "open":
            if session["status"] == "complete":
                heading = "This Checkout Session is complete"
                text = "This payment has already been submitted. There is nothing left to pay."
            else:
                heading = "This Checkout Session has expired"
                text = "This payment page is no longer available. Return to %s to start " \
                       "again." % merchant
            main = "<h1>%s</h1>%s<p>%s</p>%s" % (heading, test_badge, text, summary)
            return page_response(status, heading + " – " + acct["name"], main)
        base = "/c/pay/" + html.escape(session["id"])
        error = ""
        if session.get("_error"):
            error = '<p class="error" role="alert">%s</p>' % html.escape(session["_error"])
            session["_error"] = None
        if session["customer_email"]:
            email_field = ('<p>Email: <strong>%s</strong></p>'
                           % html.escape(session["customer_email"]))
        else:
            value = email if email is not None else "customer@example.com"
            described = ' aria-describedby="email-error" aria-invalid="true"' if email_error \
                else ""
            email_field = (
                '<label for="email">Email</label><input id="email" name="email" type="email" '
                'autocomplete="email" required value="%s"%s>' % (html.escape(value), described))
            if email_error:
                email_field += '<p class="error" id="email-error">%s</p>' % html.escape(
                    email_error)
        main = (
            "<h1>Pay %s</h1>%s%s%s"
            '<section aria-labelledby="pay-heading"><h2 id="pay-heading">Payment</h2>'
            '<form method="post" action="%s/pay" id="pay-form">%s'
            '<p id="card-note">Card: Visa test card ending in 4242.</p>'
            '<button type="submit" aria-describedby="card-note">Pay</button></form>'
            '<form method="post" action="%s/decline">'
            '<input type="hidden" name="email" value="%s">'
            '<p id="decline-note">Pay with a test card that the bank declines '
            '(4000 0000 0000 0002).</p>'
            '<button type="submit" class="secondary" aria-describedby="decline-note">Decline'
            '</button></form>'
            '<form method="post" action="%s/pay_later">'
            '<input type="hidden" name="email" value="%s">'
            '<p id="later-note">Pay by SEPA Direct Debit: the payment is confirmed days later.'
            '</p><button type="submit" class="secondary" aria-describedby="later-note">Pay '
            'later</button></form></section>'
            '<form method="post" action="%s/cancel"><p id="cancel-note">Go back to %s without '
            'paying.</p><button type="submit" class="secondary" aria-describedby="cancel-note">'
            'Cancel</button></form>'
            % (merchant, test_badge, summary, error, base, email_field, base,
               html.escape(session["customer_email"] or email or "customer@example.com"), base,
               html.escape(session["customer_email"] or email or "customer@example.com"), base,
               merchant))
        return page_response(status, "Pay %s – %s" % (acct["name"], total_text(session)), main)

    # -- the control API --------------------------------------------------------------------

    def handle_control(self, method, path, query, body):
        try:
            try:
                data = json.loads(body.decode("utf-8")) if body.strip() else {}
            except (UnicodeDecodeError, ValueError):
                raise ControlError(400, "the body is not JSON")
            if not isinstance(data, dict):
                raise ControlError(400, "the body must be a JSON object")
            q = dict(urllib.parse.parse_qsl(query))
            with self.lock:
                status, obj = self._control(method, path, data, q)
            return json_response(status, obj)
        except ControlError as e:
            return json_response(e.status, {"error": e.message})

    def _control(self, method, path, data, q):
        p = path.rstrip("/")
        if method == "POST" and p == "/_standin/accounts":
            livemode = data.get("livemode", False)
            if not isinstance(livemode, bool):
                raise ControlError(400, "livemode must be true or false")
            version = data.get("api_version")
            if version is not None and not (isinstance(version, str)
                                            and VERSION_RE.match(version)):
                raise ControlError(400, "api_version must look like 2024-06-20")
            currency = data.get("default_currency")
            if currency is not None and currency not in CURRENCIES:
                raise ControlError(400, "default_currency must be a supported currency")
            return 200, self.new_account(livemode, version, data.get("name"), currency)
        if method == "POST" and p == "/_standin/reset":
            self.reset()
            return 200, {"reset": True}
        if method == "POST" and p == "/_standin/down":
            if not isinstance(data.get("down"), bool):
                raise ControlError(400, 'expected {"down": true|false}')
            self.down = data["down"]
            return 200, {"down": self.down}
        if method == "POST" and p == "/_standin/webhooks":
            if data.get("mode") not in ("deliver", "fail", "hold"):
                raise ControlError(400, 'expected {"mode": "deliver"|"fail"|"hold"}')
            self.webhook_mode = data["mode"]
            return 200, {"mode": self.webhook_mode}
        if method == "POST" and p == "/_standin/webhooks/release":
            released = [d for d in self.held if d["_gen"] == self.generation]
            self.held = []
            for d in released:
                d["status"] = "pending"
                self.deliverer.schedule(d)
            return 200, {"released": len(released)}
        if method == "POST" and p == "/_standin/webhooks/wait":
            return self.wait_idle(data.get("timeout", 10))
        if method == "POST" and p == "/_standin/refund_mode":
            if data.get("status") not in ("pending", "succeeded"):
                raise ControlError(400, 'expected {"status": "pending"|"succeeded"}')
            self.refund_mode = data["status"]
            return 200, {"status": self.refund_mode}
        if method == "GET" and p == "/_standin/requests":
            reqs = self.requests
            if "account" in q:
                reqs = [r for r in reqs if r["account"] == q["account"]]
            if "since" in q:
                reqs = [r for r in reqs if r["seq"] > int(q["since"])]
            return 200, {"requests": copy.deepcopy(reqs)}
        if method == "GET" and p == "/_standin/events":
            out = []
            for eid in self.events:
                e = self.objects.get(eid)
                if e is None or ("account" in q and e["_account"] != q["account"]) or \
                        ("type" in q and e["type"] != q["type"]):
                    continue
                out.append({"id": e["id"], "type": e["type"], "account": e["_account"],
                            "livemode": e["livemode"], "created": e["created"],
                            "object_id": e["data"]["object"].get("id"),
                            "pending_webhooks": self.pending_webhooks(e),
                            "deliveries": [public(d) for d in e["_deliveries"]]})
            return 200, {"events": out}
        m = re.fullmatch(r"/_standin/events/([^/]+)/resend", p)
        if method == "POST" and m:
            event = self.objects.get(m.group(1))
            if event is None or event.get("object") != "event":
                raise ControlError(404, "no event %s" % m.group(1))
            eps = self.endpoints_for(event["_account"], event["_livemode"], event["type"])
            if data.get("endpoint"):
                eps = [e for e in eps if e["id"] == data["endpoint"]]
                if not eps:
                    raise ControlError(404, "no endpoint %s for this event" % data["endpoint"])
            ds = [self.new_delivery(event, ep) for ep in eps]
            return 200, {"event": event["id"], "deliveries": [public(d) for d in ds]}
        m = re.fullmatch(r"/_standin/sessions/([^/]+)/(pay|decline|pay_later|async|expire)", p)
        if method == "POST" and m:
            session = self.objects.get(m.group(1))
            if session is None or session.get("object") != "checkout.session":
                raise ControlError(404, "no checkout session %s" % m.group(1))
            action = m.group(2)
            if action == "async":
                if data.get("result") not in ("succeeded", "failed"):
                    raise ControlError(400, 'expected {"result": "succeeded"|"failed"}')
                self.settle_async(session, data["result"])
            else:
                if session["status"] != "open":
                    raise ControlError(409, "checkout session %s is %s, not open"
                                       % (session["id"], session["status"]))
                email = session["customer_email"] or data.get("email") or "customer@example.com"
                if action == "expire":
                    self.expire_session(session)
                else:
                    getattr(self, action)(session, email)
            ctx = self.ctx_of(session)
            return 200, self.render(ctx, session)
        m = re.fullmatch(r"/_standin/refunds/([^/]+)", p)
        if method == "POST" and m:
            refund = self.objects.get(m.group(1))
            if refund is None or refund.get("object") != "refund":
                raise ControlError(404, "no refund %s" % m.group(1))
            if data.get("status") not in ("succeeded", "failed"):
                raise ControlError(400, 'expected {"status": "succeeded"|"failed"}')
            self.move_refund(refund, data["status"], data.get("failure_reason"))
            return 200, self.render(self.ctx_of(refund), refund)
        raise ControlError(404, "no control route %s %s" % (method, path))

    def wait_idle(self, timeout):
        """Wait (releasing the lock) until no delivery is due or in flight."""
        deadline = time.monotonic() + float(timeout)
        while True:
            with self.deliverer.cond:
                pending = bool(self.deliverer.heap) or self.deliverer.busy
            if not pending:
                return 200, {"idle": True}
            if time.monotonic() > deadline:
                return 200, {"idle": False}
            self.lock.release()
            try:
                time.sleep(0.05)
            finally:
                self.lock.acquire()

    # -- background expiry ------------------------------------------------------------------

    def sweep(self):
        with self.lock:
            t = now()
            for obj in list(self.objects.values()):
                if obj.get("object") == "checkout.session" and obj["status"] == "open" \
                        and obj["expires_at"] <= t:
                    self.expire_session(obj)


class ControlError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


def mask_key(key):
    m = re.match(r"^((?:sk|rk|pk)_(?:test|live)_)(.*)$", key)
    prefix, rest = (m.group(1), m.group(2)) if m else ("", key)
    if len(rest) <= 4:
        return prefix + rest
    return prefix + "*" * (len(rest) - 4) + rest[-4:]


def total_text(session):
    return format_amount(session["amount_total"], session["currency"])


PAGE_CSS = """
body{margin:0;background:#f6f8fa;color:#1a1f36;font:16px/1.5 system-ui,-apple-system,
"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
main{max-width:32rem;margin:2rem auto;padding:1.5rem;background:#fff;border:1px solid #d0d7de;
border-radius:8px}
h1{font-size:1.5rem;margin:0 0 .75rem}h2{font-size:1.125rem;margin:1.25rem 0 .5rem}
.mode{display:inline-block;margin:0 0 .5rem;padding:.1rem .5rem;border-radius:4px;
background:#fff4e5;color:#663c00;font-size:.875rem}
table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:.25rem 0}
.amount{text-align:right}tfoot th,tfoot td{border-top:1px solid #d0d7de}
label{display:block;margin:.5rem 0 .25rem;font-weight:600}
input{width:100%;box-sizing:border-box;padding:.5rem;border:1px solid #57606a;border-radius:4px;
font:inherit}
form{margin:0 0 1rem}form p{margin:.5rem 0 0;color:#3c4257}
button{margin-top:.5rem;width:100%;padding:.625rem;border-radius:4px;border:1px solid #1e40af;
background:#1d4ed8;color:#fff;font:inherit;font-weight:600;cursor:pointer}
button.secondary{background:#fff;color:#1a1f36;border-color:#57606a}
button:focus{outline:3px solid #f59e0b;outline-offset:2px}
.error{color:#9f1239;background:#fff1f2;border:1px solid #9f1239;padding:.5rem;border-radius:4px}
"""


def page_response(status, title, main_html):
    doc = ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
           '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
           '<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n%s\n</main>\n'
           '</body>\n</html>\n' % (html.escape(title), PAGE_CSS, main_html))
    return Response(status, doc.encode("utf-8"), "text/html; charset=utf-8",
                    [("Cache-Control", "no-store")])


# ---------------------------------------------------------------------------------------------
# HTTP


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "stripe-standin/1"
    sys_version = ""

    def version_string(self):
        return self.server_version
    app = None  # set in main

    def log_message(self, fmt, *args):
        if self.app.verbose:
            sys.stderr.write("%s - %s\n" % (self.address_string(), fmt % args))

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def do_PUT(self):
        self.dispatch("PUT")

    def do_PATCH(self):
        self.dispatch("PATCH")

    def read_body(self):
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def dispatch(self, method):
        try:
            body = self.read_body()
        except (ValueError, OSError):
            self.send_error(400)
            return
        url = urllib.parse.urlsplit(self.path)
        path = url.path
        app = self.app
        try:
            if path == "/v1" or path.startswith("/v1/"):
                resp = app.handle_api(method, path, url.query, body, self.headers)
            elif path.startswith("/_standin/"):
                resp = app.handle_control(method, path, url.query, body)
            elif path.startswith("/c/pay/"):
                resp = app.handle_page(method, path, body)
            elif path in ("/", "/health") and method == "GET":
                resp = Response(200, b"Stripe stand-in: see scripts/stripe_standin/README.md\n",
                                "text/plain; charset=utf-8")
            else:
                resp = Response(404, b"Not found\n", "text/plain; charset=utf-8")
        except Exception:
            traceback.print_exc()
            resp = Response(500, b"Internal error in the Stripe stand-in\n",
                            "text/plain; charset=utf-8")
        self.send_response(resp.status)
        self.send_header("Content-Type", resp.content_type)
        self.send_header("Content-Length", str(len(resp.body)))
        for k, v in resp.headers:
            self.send_header(k, v)
        self.end_headers()
        if method != "HEAD":
            self.wfile.write(resp.body)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free port)")
    p.add_argument("--port-file", help="write the port here once listening")
    p.add_argument("--public-base", help="base URL of the hosted pages "
                   "(default http://127.0.0.1:<port>)")
    p.add_argument("--verbose", action="store_true", help="log requests and deliveries")
    args = p.parse_args(argv)

    app = StandIn(verbose=args.verbose)
    Handler.app = app
    server = Server(("127.0.0.1", args.port), Handler)
    port = server.server_address[1]
    app.public_base = args.public_base or "http://127.0.0.1:%d" % port

    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    app.deliverer.start()
    serving = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                               name="http", daemon=True)
    serving.start()
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % port)
        os.replace(tmp, args.port_file)
    if args.verbose:
        print("stripe stand-in listening on 127.0.0.1:%d" % port, file=sys.stderr)
    while not stop.wait(1.0):
        try:
            app.sweep()
        except Exception:
            traceback.print_exc()
    server.shutdown()
    server.server_close()
    app.deliverer.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
