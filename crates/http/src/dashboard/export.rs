//! The dashboard's CSV links (SPEC §22): the list shown (with its filters) or a report, as the
//! API answers it for `Accept: text/csv`, through the same operations and the session's role.

use super::session::visitor;
use super::{respond, Refusal};
use crate::csv_export::list_answer;
use crate::error::ApiError;
use crate::routes::{credit_notes, customers, invoices, payments, products, quotations, reports};
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};

/// Every row of a list, or a report, as CSV.
#[utoipa::path(get, path = "/dashboard/export/{what}", tag = "dashboard", operation_id = "dashboard_export",
    params(("what" = String, Path, description = "invoices, quotations, customers, payments, products, credit-notes, aging, revenue or tax; the query is the list's filters or the report's days")),
    responses(
        (status = 200, description = "The rows as CSV (UTF-8 with a byte-order mark)", content_type = "text/csv", body = String),
        (status = 400, description = "A filter the API refuses", content_type = "text/html", body = String),
        (status = 404, description = "No such list", content_type = "text/html", body = String),
    ))]
pub async fn export(
    state: web::Data<AppState>,
    req: HttpRequest,
    what: web::Path<String>,
) -> HttpResponse {
    let answer = async {
        let me = visitor(&state, &req).await?;
        let ops = me.ops(&state);
        let q = super::form::without_blanks(req.query_string());
        let csv = match what.as_str() {
            "invoices" => {
                list_answer(
                    &q,
                    true,
                    ops,
                    "invoices.csv",
                    invoices::INVOICE_COLUMNS,
                    invoices::invoice_row,
                    |o, q| async move { o.list_invoices(&q).await },
                )
                .await
            }
            "quotations" => {
                list_answer(
                    &q,
                    true,
                    ops,
                    "quotations.csv",
                    quotations::QUOTATION_COLUMNS,
                    quotations::quotation_row,
                    |o, q| async move { o.list_quotations(&q).await },
                )
                .await
            }
            "customers" => {
                list_answer(
                    &q,
                    true,
                    ops,
                    "customers.csv",
                    customers::CUSTOMER_COLUMNS,
                    customers::customer_row,
                    |o, q| async move { o.list_customers(&q).await },
                )
                .await
            }
            "payments" => {
                list_answer(
                    &q,
                    true,
                    ops,
                    "payments.csv",
                    payments::PAYMENT_COLUMNS,
                    payments::payment_row,
                    |o, q| async move { o.list_payments(&q).await },
                )
                .await
            }
            "products" => {
                list_answer(
                    &q,
                    true,
                    ops,
                    "products.csv",
                    products::PRODUCT_COLUMNS,
                    products::product_row,
                    |o, q| async move { o.list_products(&q).await },
                )
                .await
            }
            "credit-notes" => {
                list_answer(
                    &q,
                    true,
                    ops,
                    "credit_notes.csv",
                    credit_notes::CREDIT_NOTE_COLUMNS,
                    credit_notes::credit_note_row,
                    |o, q| async move { o.list_credit_notes(&q).await },
                )
                .await
            }
            "aging" => reports::aging_csv(&q, ops).await,
            "revenue" => match ops.revenue_report(&q).await {
                Ok(r) => reports::revenue_csv(&r),
                Err(e) => Err(e),
            },
            "tax" => match ops.tax_report(&q).await {
                Ok(r) => reports::tax_csv(&r),
                Err(e) => Err(e),
            },
            _ => Err(ApiError::resource_missing("export")),
        };
        csv.map_err(Refusal::from)
    }
    .await;
    respond(&req, answer)
}
