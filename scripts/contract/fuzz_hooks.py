"""Schemathesis hooks for scripts/contract/fuzz: the check that a request the OpenAPI document
allows is accepted, with the exceptions named one by one.

Generated `Idempotency-Key`s repeat ("0", "00", …), so a valid one is made unique before each
call: a repeat would (rightly) replay an earlier answer or be refused as reused, which tests the
fuzzer, not the server. Negative cases are sent as generated.

The built-in `positive_data_acceptance` is replaced (the script excludes it) by
`schema_valid_request_accepted`, which answers the same question but reads the error body: a
schema-valid request may still be refused for a reason no JSON Schema can state, a rule between
the request and stored data or between two dates. Those reasons are listed below, each as the
`param` and message the server writes; anything else refused is a failure.
"""

import re
import uuid

import schemathesis
from schemathesis.specs.openapi.checks import ensure_resource_availability

VALID_KEY = re.compile(r"[!-~]([ -~]*[!-~])?")

# What a schema-valid request may answer without saying anything about the document: the
# default of `positive_data_acceptance`, whose 5xx half `not_a_server_error` still fails.
NEUTRAL = {401, 403, 404, 409, 429}

# `validation_failed` details that depend on stored data or compare values with each other:
# (param, message) exactly as the server writes them, both regular expressions matched in full;
# `[N]` stands for any line index. Nothing else refused passes.
CUR = r"[A-Z]{3}"
RULES = [
    # Dates compared with each other.
    (r"due_date|valid_until", r"must not be before issue_date"),
    (r"end_date", r"must not be before start_date"),
    (r"service_period\.end", r"must not be before the start \(\d{4}-\d{2}-\d{2}\)"),
    # Two fields of which a body gives one (SPEC §27): a delivery date or a service period.
    (r"service_period", r"give delivery_date or service_period, not both"),
    # A schedule's email against its stored auto_send (a PATCH may change either).
    (r"email", r"emails the invoices auto_send sends: set auto_send too"),
    # Compared with today.
    (r"start_date", r"must not be in the past"),
    # References to stored records and what they hold.
    (r"customer_id", r"no such customer"),
    (r"line_items\[N\]\.product_id", r"no such product"),
    (r"line_items\[N\]\.product_id", r"the product is archived \(active: false\)"),
    (r"line_items\[N\]\.product_id", rf"the product is priced in {CUR}, the document in {CUR}"),
    (r"currency", rf"line_items\[\d+\] comes from a product priced in {CUR}; send new line_items with the currency"),
    # Products of quantity, price and rate, and sums over lines.
    (r"line_items\[N\]\.unit_price_cents", r"makes the line amount exceed ±1000000000000000"),
    (r"line_items", r"the document total must not be negative"),
    (r"line_items", r"the document total exceeds ±1000000000000000"),
    # What an uploaded logo's bytes are: the document can say "PNG or JPEG", not "decodes".
    (r"logo", r"is not a readable PNG or JPEG image"),
    (r"logo", r"must be at most 2000×2000 pixels \(this one is \d+×\d+\)"),
    (r"logo", r"must be at most 512 KiB"),
    # Recipients of an email: `to` and `cc` are two fields, the limit is on both together.
    (r"email\.to", r"to and cc together must have at most 10 addresses"),
    # A credit against what its invoice has left to credit.
    (r"amount_cents|line_items", r"exceeds what the invoice has left to credit \(-?\d+\)"),
    (r"amount_cents|line_items", r"must be more than zero"),
    # A payment against what its invoice still owes.
    (r"amount_cents|amount", r"must not exceed the amount due, .+"),
    (r"amount", r"must not exceed what is neither paid nor reported yet, .+"),
    (r"amount", r"has been reported already: the merchant is checking it"),
    (r"amount_cents", r"must not exceed the invoice's amount due \(-?\d+\)"),
    (r"amount_cents", r"payment \d+ of \d+ exceeds what invoice \d+ still owes \(-?\d+\); reject it instead"),
    # E-invoice data (SPEC §23) against lists and rules no pattern states: an IBAN's check
    # digits, units and VATEX codes outside the official lists, a VAT category against the rate.
    (r"bank_account\.iban", r"must be a valid IBAN"),
    # An electronic address's identifier against its scheme's check digits or form (0208
    # Belgian enterprise numbers, 0088 GLNs, 9925 Belgian VAT numbers…): the scheme is another
    # field, and a check digit is arithmetic no pattern states.
    (r"(customer\.)?electronic_address\.id", r"must be an? .+"),
    (r"time_zone", r"must be an IANA time zone name, .+"),
    (r"line_items\[N\]\.unit", r"must be a UN/ECE Recommendation 20 unit code, .+"),
    (r"line_items\[N\]\.tax_exemption_reason", r"is not a code of the VATEX list .+"),
    (r"line_items\[N\]\.tax_category", r"(S|Z|E|AE|K|G|O): .+"),
    # Stripe's keys (SPEC §25): a key of the other environment than the API key's, or one Stripe
    # does not know (the fuzzing server talks to the stand-in, which knows none it did not make).
    (r"secret_key|publishable_key", r"must be a Stripe (secret|publishable) key of the (test|live) environment starting with .+"),
    (r"secret_key", r"was refused by Stripe: .+"),
    # Payment requests and portal links (SPEC §26): an end compared with now; an amount no net
    # price reaches at its rate; a phone that cannot be dialled (libphonenumber's lists); a
    # return URL that is https (or http to this machine in test mode).
    (r"expires_at", r"must be in the future"),
    (r"expires_at", r"must be within \d+ days"),
    (r"amount_cents", r"cannot be split at this tax_rate into a net price and a tax that add up to it.*"),
    (r"customer_phone|phone", r"must be a phone number that can be dialled: .+"),
    (r"success_url|cancel_url", r"must (be an https URL .+|not carry credentials|be an absolute https URL)"),
    # A refund against what the payment brought beyond what its invoice is owed.
    (r"amount_cents", r"nothing to refund: .+"),
    (r"amount_cents", r"must not exceed what may be refunded, \d+"),
]

# `invalid_parameter` refusals of query parameters compared with each other, as (param,
# message) regular expressions: a report's or statement's range (SPEC §22), where `to` may
# also default to today.
PARAMETER_RULES = [
    (r"from", r"(from: )?must not be after to \(\d{4}-\d{2}-\d{2}\)"),
]

# Refusals about stored documents rather than the request: an invoice that lacks what EN 16931
# needs cannot be written as an e-invoice (SPEC §23), however the request is made.
STORED = {"einvoice_incomplete"}


def _rule_allows(param: str, message: str) -> bool:
    shape = re.sub(r"\[\d+\]", "[N]", param)
    return any(
        re.fullmatch(p, shape) and re.fullmatch(m, message) for p, m in RULES
    )


@schemathesis.hook
def before_call(context, case, kwargs):
    # A negative case is left as generated: an edit would make schemathesis validate it again
    # and send the very header (e.g. Authorization) whose absence it tests.
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return
    headers = case.headers or {}
    for name in list(headers):
        value = headers[name]
        if name.lower() == "idempotency-key" and isinstance(value, str) and VALID_KEY.fullmatch(value) and len(value) <= 255:
            headers[name] = f"fuzz-{uuid.uuid4().hex}"


@schemathesis.check
def schema_valid_request_accepted(ctx, response, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None
    status = response.status_code
    if status < 400 or status >= 500 or status in NEUTRAL:
        return None
    # The portal's login shows its form again, as a page, for text that is no email address as
    # the server reads one (no JSON Schema format states that reading).
    if status == 422 and case.path == "/portal/login":
        return None
    try:
        error = response.json()["error"]
    except Exception:
        raise AssertionError(f"A schema-valid request was refused with {status} and no error body")
    code = error.get("code")
    if code in STORED:
        return None
    details = error.get("details") or []
    if code == "invalid_parameter" and any(
        re.fullmatch(p, error.get("param", "")) and re.fullmatch(m, error.get("message", ""))
        for p, m in PARAMETER_RULES
    ):
        return None
    if code == "validation_failed" and details and all(
        _rule_allows(d.get("param", ""), d.get("message", "")) for d in details
    ):
        return None
    raise AssertionError(
        f"A schema-valid request was refused: {status} {code}: {error.get('message')}"
    )


# A payment's proof of transfer is optional (SPEC §25): a payment recorded without one answers
# its documented 404 "No such proof" at the proof's address, which the built-in
# `ensure_resource_availability` (excluded by the script) would call a created resource gone.
# Everywhere else it runs as built.
OPTIONAL_SUBRESOURCES = {"/api/v1/payments/{id}/proof"}


@schemathesis.check
def created_resource_available(ctx, response, case):
    if case.operation.path in OPTIONAL_SUBRESOURCES:
        return None
    return ensure_resource_availability(ctx, response, case)
