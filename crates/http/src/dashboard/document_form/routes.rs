//! The `form_routes!` macro: the four routes of one kind's form, thin handlers over the
//! document form's entry points.

/// The four routes of one kind's form (new, create, edit, save), over the document form's entry points. Each
/// kind names its paths, operation ids and the words its document uses; nothing else differs.
macro_rules! form_routes {
    (
        kind: $kind:expr,
        new: $new:tt, edit: $edit:tt,
        operation_ids: [$new_id:tt, $create_id:tt, $edit_id:tt, $save_id:tt],
        docs: [$new_doc:tt, $create_doc:tt, $edit_doc:tt, $save_doc:tt $(,)?],
        create_fields: $create_fields:tt, save_fields: $save_fields:tt,
        id: $id:tt, saved: $saved:tt, location: $location:tt,
        may_not_create: $may_not_create:tt, may_not_change: $may_not_change:tt,
        missing: $missing:tt, fixed: $fixed:tt $(,)?
    ) => {
        use $crate::dashboard::document_form;
        use $crate::dashboard::{Answer, Posted, Visitor};
        use $crate::AppState;
        use actix_web::{web, HttpRequest};

        #[doc = $new_doc]
        #[utoipa::path(get, path = $new, tag = "dashboard", operation_id = $new_id,
            params(("customer_id" = Option<String>, Query, description = "The customer to preselect")),
            responses(
                (status = 200, description = "The form", content_type = "text/html", body = String),
                (status = 403, description = $may_not_create, content_type = "text/html", body = String),
            ))]
        pub(crate) async fn new_page(me: Visitor, state: web::Data<AppState>, req: HttpRequest) -> Answer {
            document_form::new_page($kind, me, &state, &req).await
        }

        #[doc = $create_doc]
        #[utoipa::path(post, path = $new, tag = "dashboard", operation_id = $create_id,
            request_body(content = $crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
                description = $create_fields),
            responses(
                (status = 200, description = "The form again, with a line added or removed", content_type = "text/html", body = String),
                (status = 303, description = $saved, headers(("Location" = String, description = $location))),
                (status = 422, description = "The form again, each refusal beside its field", content_type = "text/html", body = String),
            ))]
        pub(crate) async fn save_new(post: Posted, state: web::Data<AppState>, req: HttpRequest) -> Answer {
            document_form::save::save_new($kind, post, &state, &req).await
        }

        #[doc = $edit_doc]
        #[utoipa::path(get, path = $edit, tag = "dashboard", operation_id = $edit_id,
            params(("id" = String, Path, description = $id)),
            responses(
                (status = 200, description = "The form", content_type = "text/html", body = String),
                (status = 403, description = $may_not_change, content_type = "text/html", body = String),
                (status = 404, description = $missing, content_type = "text/html", body = String),
                (status = 409, description = $fixed, content_type = "text/html", body = String),
            ))]
        pub(crate) async fn edit_page(
            me: Visitor,
            state: web::Data<AppState>,
            req: HttpRequest,
            id: web::Path<String>,
        ) -> Answer {
            document_form::edit_page($kind, me, &state, &req, &id).await
        }

        #[doc = $save_doc]
        #[utoipa::path(post, path = $edit, tag = "dashboard", operation_id = $save_id,
            params(("id" = String, Path, description = $id)),
            request_body(content = $crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
                description = $save_fields),
            responses(
                (status = 200, description = "The form again, with a line added or removed", content_type = "text/html", body = String),
                (status = 303, description = $saved, headers(("Location" = String, description = $location))),
                (status = 404, description = $missing, content_type = "text/html", body = String),
                (status = 409, description = $fixed, content_type = "text/html", body = String),
                (status = 422, description = "The form again, each refusal beside its field", content_type = "text/html", body = String),
            ))]
        pub(crate) async fn save_edit(
            post: Posted,
            state: web::Data<AppState>,
            req: HttpRequest,
            id: web::Path<String>,
        ) -> Answer {
            document_form::save::save_edit($kind, post, &state, &req, &id).await
        }
    };
}
pub(crate) use form_routes;
