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
