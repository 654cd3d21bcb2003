//! The invoice's form routes, over the document form (`dashboard::document_form`).

crate::dashboard::document_form::routes::form_routes! {
    kind: crate::dashboard::document_form::Kind::Invoice,
    new: "/dashboard/invoices/new", edit: "/dashboard/invoices/{id}/edit",
    operation_ids: ["dashboard_invoice_new", "dashboard_invoice_create", "dashboard_invoice_edit", "dashboard_invoice_save"],
    docs: [
        "The new-invoice form.",
        "Creates the invoice (and sends it, with `action=save_send`, or emails it, `save_email`).",
        "The form of a draft invoice.",
        "Saves the draft invoice, as `PATCH` does.",
    ],
    create_fields: "`csrf`, `customer_id` or `customer.name` and `customer.email`, `currency`, `payment_terms` or `due_date`, `notes`, `line_count` and per line, named as the API's, `line_items[N].product_id`, `.description`, `.quantity`, `.unit_price` (in the currency, e.g. 12.50), `.tax_rate`, `.unit`, `.tax_category`, `.tax_exemption_reason`; `action`: `save`, `save_send`, `save_email`, `add_line` or `remove_line-N`",
    save_fields: "The fields of the new-invoice form (an existing customer only)",
    id: "The invoice's id", saved: "Saved: to the invoice", location: "The invoice",
    may_not_create: "A role that may not create invoices", may_not_change: "A role that may not change invoices",
    missing: "No such invoice in this account and environment", fixed: "Not a draft any more",
}
