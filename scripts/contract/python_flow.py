"""The README's walk-through through a Python client generated from /api/v1/openapi.json
(openapi-python-client), written as a user would: no casts, no raw HTTP, no workarounds.

Usage: python_flow.py CLIENT_DIR BASE_URL API_KEY CA_FILE
"""

import io
import struct
import sys
import zlib

client_dir, base_url, key, ca_file = sys.argv[1:5]
sys.path.insert(0, client_dir)

from invoicing_api_client import AuthenticatedClient  # noqa: E402
from invoicing_api_client.api.account import account_get_logo, account_put_logo, account_update  # noqa: E402
from invoicing_api_client.api.customers import customers_create, customers_list  # noqa: E402
from invoicing_api_client.api.invoices import (  # noqa: E402
    invoices_create,
    invoices_get,
    invoices_pdf,
    invoices_send,
)
from invoicing_api_client.api.payments import payments_create, payments_verify  # noqa: E402
from invoicing_api_client.api.quotations import (  # noqa: E402
    quotations_accept,
    quotations_convert,
    quotations_create,
    quotations_send,
)
from invoicing_api_client.models import (  # noqa: E402
    ConversionResult,
    Customer,
    CustomerInput,
    ErrorBody,
    Invoice,
    InvoiceInput,
    LineItemInput,
    Payment,
    PaymentInput,
    PaymentMethod,
    Profile,
    ProfileAddressInput,
    ProfilePatchInput,
    Quotation,
    QuotationInput,
)
from invoicing_api_client.types import File  # noqa: E402

client = AuthenticatedClient(base_url=base_url, token=key, verify_ssl=ca_file)


def expect(value, kind):
    assert isinstance(value, kind), f"expected {kind.__name__}, got {value!r}"
    return value


# Who the documents come from: the profile, then a logo (a 2×2 PNG made here).
profile = expect(
    account_update.sync(
        client=client,
        body=ProfilePatchInput(
            legal_name="Acme Handels GmbH",
            tax_id="DE123456789",
            payment_instructions="IBAN DE89 3704 0044 0532 0130 00",
            address=ProfileAddressInput(line1="Hauptstraße 1", city="Berlin", country="DE"),
        ),
    ),
    Profile,
)
assert profile.address is not None and profile.legal_name == "Acme Handels GmbH", profile


def png(width, height):
    rows = b"".join(b"\x00" + b"\x1f\x6f\xeb" * width for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


logo = png(2, 2)
uploaded = account_put_logo.sync_detailed(client=client, body=File(payload=io.BytesIO(logo), mime_type="image/png"))
assert uploaded.status_code == 204, uploaded
stored = expect(account_get_logo.sync(client=client), File)
assert stored.payload.read() == logo

ada = expect(
    customers_create.sync(client=client, body=CustomerInput(name="Ada", email="ada@example.com")),
    Customer,
)
# The types require an email (CustomerInput(name=…) alone does not construct); the server's
# answer to a bad one is the typed error body.
bad = customers_create.sync_detailed(client=client, body=CustomerInput(name="Bo", email="bo@"))
assert bad.status_code == 422 and isinstance(bad.parsed, ErrorBody), bad
found = customers_list.sync(client=client, email="ADA@example.com")
assert found is not None and found.total == 1, found

line = LineItemInput(description="Consulting", quantity=2, unit_price_cents=1250)
invoice = expect(
    invoices_create.sync(client=client, body=InvoiceInput(customer_id=ada.id, line_items=[line])),
    Invoice,
)
assert invoice.total_cents == 2500, invoice
sent = expect(invoices_send.sync(client=client, id=invoice.id), Invoice)
assert sent.status.value == "sent", sent.status
pdf = expect(invoices_pdf.sync(client=client, id=invoice.id), File)
assert pdf.payload.read().startswith(b"%PDF-")

paid = expect(
    payments_create.sync(
        client=client,
        body=PaymentInput(
            invoice_id=invoice.id,
            amount_cents=invoice.total_cents,
            method=PaymentMethod.BANK_TRANSFER,
        ),
    ),
    Payment,
)
expect(payments_verify.sync(client=client, id=paid.id), Payment)
assert expect(invoices_get.sync(client=client, id=invoice.id), Invoice).status.value == "paid"

quote = expect(
    quotations_create.sync(
        client=client,
        body=QuotationInput(
            customer_id=ada.id,
            line_items=[LineItemInput(description="Design", quantity="1.5", unit_price_cents=1000)],
        ),
    ),
    Quotation,
)
expect(quotations_send.sync(client=client, id=quote.id), Quotation)
expect(quotations_accept.sync(client=client, id=quote.id), Quotation)
converted = expect(quotations_convert.sync(client=client, id=quote.id), ConversionResult)
assert expect(invoices_get.sync(client=client, id=converted.invoice_id), Invoice).total_cents == 1500
print("python client flow: ok")
