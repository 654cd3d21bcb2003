// The README's walk-through through a typed client generated from the document, under --strict:
// no casts. Lines marked @ts-expect-error must stay errors.
import createClient from "openapi-fetch";
import type { paths, components } from "./api";

type Invoice = components["schemas"]["Invoice"];
type Event = components["schemas"]["Event"];

const api = createClient<paths>({ baseUrl: "https://localhost:8443", headers: { Authorization: "Bearer sk_test_x" } });

export async function walkThrough(): Promise<string> {
  const { data: customer } = await api.POST("/api/v1/customers", { body: { name: "Ada", email: "ada@example.com" } });
  if (!customer) return "no customer";
  // @ts-expect-error a customer needs an email
  await api.POST("/api/v1/customers", { body: { name: "Ada" } });
  // @ts-expect-error an empty body is no customer
  await api.POST("/api/v1/customers", { body: {} });
  const { data: invoice } = await api.POST("/api/v1/invoices", {
    body: { customer_id: customer.id, line_items: [{ description: "Consulting", quantity: 2, unit_price_cents: 1250 }] },
  });
  await api.POST("/api/v1/quotations", {
    body: { customer_id: customer.id, line_items: [{ description: "Design", quantity: "1.5", unit_price_cents: 1000, tax_rate: 19 }] },
  });
  if (!invoice) return "no invoice";
  const sent: Invoice | undefined = (await api.POST("/api/v1/invoices/{id}/send", { params: { path: { id: invoice.id } } })).data;
  const when: string | null = invoice.sent_at;
  // @ts-expect-error not a status
  await api.GET("/api/v1/invoices", { params: { query: { status: "unpaid" } } });
  return `${sent?.status} ${when}`;
}

export function invoiceOf(event: Event): Invoice | undefined {
  const object = event.data.object;
  return object.object === "invoice" ? object : undefined;
}

// Files are Blobs (generate.mjs): the logo goes up as its bytes, a PDF comes back as a Blob.
export async function files(invoiceId: number, png: Blob): Promise<number> {
  const { response } = await api.PUT("/api/v1/account/logo", {
    body: png,
    bodySerializer: (body) => body,
    headers: { "Content-Type": "image/png" },
  });
  const { data: pdf } = await api.GET("/api/v1/invoices/{id}/pdf", {
    params: { path: { id: invoiceId } },
    parseAs: "blob",
  });
  const bytes: Blob | undefined = pdf;
  // @ts-expect-error a logo is bytes, not text
  await api.PUT("/api/v1/account/logo", { body: "not an image" });
  return response.status + (bytes?.size ?? 0);
}

// A list is its page, read as `data.data` with no cast; its CSV is an operation of its own, read
// as text, with the same filters and no paging.
export async function lists(): Promise<string> {
  const { data: page } = await api.GET("/api/v1/invoices", { params: { query: { status: "sent", per_page: 10 } } });
  const numbers: string[] = (page?.data ?? []).map((i: Invoice) => i.invoice_number);
  const more: boolean | undefined = page?.has_more;
  const { data: csv } = await api.GET("/api/v1/invoices.csv", { params: { query: { status: "sent" } }, parseAs: "text" });
  const rows: string | undefined = csv;
  const { data: tax } = await api.GET("/api/v1/reports/tax.csv", {
    params: { query: { from: "2026-01-01", to: "2026-03-31" } },
    parseAs: "text",
  });
  const { data: report } = await api.GET("/api/v1/reports/tax", { params: { query: { from: "2026-01-01", to: "2026-03-31" } } });
  const boxes: string[] = (report?.data ?? []).map((l) => `${l.tax_rate} ${l.tax_category ?? ""}`);
  // @ts-expect-error a CSV has no pages
  await api.GET("/api/v1/invoices.csv", { params: { query: { per_page: 10 } } });
  return `${numbers.join(",")} ${more} ${rows?.length} ${tax?.length} ${boxes.join(",")}`;
}
