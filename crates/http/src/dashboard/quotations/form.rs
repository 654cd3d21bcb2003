//! The quotation's form routes, over the document form (`dashboard::document_form`).

crate::dashboard::document_form::routes::form_routes! {
    kind: crate::dashboard::document_form::Kind::Quotation,
    new: "/dashboard/quotations/new", edit: "/dashboard/quotations/{id}/edit",
    operation_ids: ["dashboard_quotation_new", "dashboard_quotation_create", "dashboard_quotation_edit", "dashboard_quotation_save"],
    docs: [
        "The new-quotation form.",
        "Creates the quotation (and sends it, with `action=save_send`, or emails it, `save_email`).",
        "The form of a draft quotation.",
        "Saves the draft quotation, as `PATCH` does.",
    ],
    create_fields: "`csrf`, `customer_id` or `customer.name` and `customer.email`, `currency`, `valid_until`, `notes`, `line_count` and per line, named as the API's, `line_items[N].product_id`, `.description`, `.quantity`, `.unit_price` (in the currency, e.g. 12.50), `.tax_rate`, `.unit`, `.tax_category`, `.tax_exemption_reason`; `action`: `save`, `save_send`, `save_email`, `add_line` or `remove_line-N`",
    save_fields: "The fields of the new-quotation form (an existing customer only)",
    id: "The quotation's id", saved: "Saved: to the quotation", location: "The quotation",
    may_not_create: "A role that may not create quotations", may_not_change: "A role that may not change quotations",
    missing: "No such quotation in this account and environment", fixed: "Not a draft any more",
}
