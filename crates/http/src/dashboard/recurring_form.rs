//! The recurring invoice's form routes, over the document form (`dashboard::document_form`).

super::document_form::routes::form_routes! {
    kind: super::document_form::Kind::Recurring,
    new: "/dashboard/recurring/new", edit: "/dashboard/recurring/{id}/edit",
    operation_ids: ["dashboard_recurring_new", "dashboard_recurring_create", "dashboard_recurring_edit", "dashboard_recurring_save"],
    docs: [
        "The form of a new schedule.",
        "Creates the schedule.",
        "The form of a schedule (its lines, terms, end and sending; not its customer or cadence).",
        "Saves the schedule's changes, as `PATCH` does: they apply to the invoices not yet issued.",
    ],
    create_fields: "`csrf`, `customer_id` or `customer.name` and `customer.email`, `currency`, `payment_terms`, `start_date` (the first issue), `interval`, `interval_count`, `end_date`, `auto_send`, `email`, `notes`, `line_count` and the lines' fields; `action`: `save`, `add_line` or `remove_line-N`",
    save_fields: "The fields of the schedule's form",
    id: "The schedule's id", saved: "Saved: to the schedule", location: "The schedule",
    may_not_create: "A role that may not create schedules", may_not_change: "A role that may not change schedules",
    missing: "No such schedule in this account and environment", fixed: "Cancelled or completed",
}
