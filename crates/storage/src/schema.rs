//! Table definitions shared by both backends: only types both PostgreSQL and SQLite map the same
//! way (BIGINT, TEXT, BOOLEAN, TIMESTAMP holding UTC; JSON kept as TEXT).

diesel::table! {
    accounts (id) {
        id -> BigInt,
        name -> Text,
        default_currency -> Text,
        created_at -> Timestamp,
        require_totp -> Bool,
    }
}

diesel::table! {
    api_keys (id) {
        id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        key_hash -> Text,
        prefix -> Text,
        last4 -> Text,
        scopes -> Text,
        rate_per_minute -> Nullable<Integer>,
        burst -> Nullable<Integer>,
        expires_at -> Nullable<Timestamp>,
        revoked_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
        last_used_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    customers (id) {
        id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        name -> Text,
        email -> Text,
        email_normalized -> Text,
        phone -> Nullable<Text>,
        company -> Nullable<Text>,
        address -> Nullable<Text>,
        metadata -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        locale -> Nullable<Text>,
        tax_id -> Nullable<Text>,
        vat_id -> Nullable<Text>,
        electronic_address -> Nullable<Text>,
        phone_e164 -> Nullable<Text>,
    }
}

diesel::table! {
    document_counters (account_id, livemode, kind, year) {
        account_id -> BigInt,
        livemode -> Bool,
        kind -> Text,
        year -> Integer,
        last_value -> BigInt,
    }
}

diesel::table! {
    document_counts (account_id, livemode, kind, status) {
        account_id -> BigInt,
        livemode -> Bool,
        kind -> Text,
        status -> Text,
        n -> BigInt,
    }
}

diesel::table! {
    invoices (id) {
        id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        number -> Text,
        status -> Text,
        customer_id -> BigInt,
        currency -> Text,
        issue_date -> Date,
        due_date -> Date,
        payment_terms -> Nullable<Text>,
        subtotal_cents -> BigInt,
        tax_cents -> BigInt,
        total_cents -> BigInt,
        amount_paid_cents -> BigInt,
        notes -> Nullable<Text>,
        metadata -> Text,
        token -> Text,
        quotation_id -> Nullable<BigInt>,
        sent_at -> Nullable<Timestamp>,
        viewed_at -> Nullable<Timestamp>,
        paid_at -> Nullable<Timestamp>,
        cancelled_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        issuer -> Nullable<Text>,
        recipient -> Nullable<Text>,
        reminders -> Nullable<Text>,
        amount_credited_cents -> BigInt,
        recurring_invoice_id -> Nullable<BigInt>,
        recurring_period -> Nullable<Integer>,
        buyer_refs -> Nullable<Text>,
        tax_rounding -> Text,
    }
}

diesel::table! {
    line_items (id) {
        id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        document_kind -> Text,
        document_id -> BigInt,
        position -> Integer,
        description -> Text,
        quantity_milli -> BigInt,
        unit_price_cents -> BigInt,
        tax_rate_milli -> BigInt,
        subtotal_cents -> BigInt,
        tax_cents -> BigInt,
        total_cents -> BigInt,
        product_id -> Nullable<BigInt>,
        unit -> Text,
        tax_category -> Nullable<Text>,
        tax_exemption_reason -> Nullable<Text>,
    }
}

diesel::table! {
    events (id) {
        id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        event_type -> Text,
        data -> Text,
        created_at -> Timestamp,
        actor_type -> Text,
        actor_id -> Nullable<BigInt>,
        object_id -> Nullable<BigInt>,
    }
}

diesel::joinable!(api_keys -> accounts (account_id));
diesel::joinable!(customers -> accounts (account_id));
diesel::allow_tables_to_appear_in_same_query!(
    accounts,
    api_keys,
    customers,
    document_counters,
    invoices,
    line_items,
    events,
    quotations
);

diesel::table! {
    quotations (id) {
        id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        number -> Text,
        status -> Text,
        customer_id -> BigInt,
        currency -> Text,
        issue_date -> Date,
        valid_until -> Date,
        subtotal_cents -> BigInt,
        tax_cents -> BigInt,
        total_cents -> BigInt,
        notes -> Nullable<Text>,
        metadata -> Text,
        token -> Text,
        accepted_by_name -> Nullable<Text>,
        accepted_from_ip -> Nullable<Text>,
        accepted_user_agent -> Nullable<Text>,
        rejection_reason -> Nullable<Text>,
        invoice_id -> Nullable<BigInt>,
        sent_at -> Nullable<Timestamp>,
        viewed_at -> Nullable<Timestamp>,
        accepted_at -> Nullable<Timestamp>,
        rejected_at -> Nullable<Timestamp>,
        expired_at -> Nullable<Timestamp>,
        converted_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        issuer -> Nullable<Text>,
        recipient -> Nullable<Text>,
    }
}

diesel::table! {
    webhook_endpoints (id) {
        id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        url -> Text,
        events -> Text,
        description -> Nullable<Text>,
        secret -> Text,
        enabled -> Bool,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    webhook_deliveries (id) {
        id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        endpoint_id -> BigInt,
        event_id -> BigInt,
        state -> Text,
        attempts -> Integer,
        next_attempt_at -> Timestamp,
        claim -> Nullable<Text>,
        locked_until -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    webhook_attempts (id) {
        id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        delivery_id -> BigInt,
        endpoint_id -> BigInt,
        event_id -> BigInt,
        event_type -> Text,
        attempt -> Integer,
        status_code -> Nullable<Integer>,
        duration_ms -> BigInt,
        error -> Nullable<Text>,
        response_excerpt -> Nullable<Text>,
        state -> Text,
        next_attempt_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    recurring_invoices (id) {
        id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        customer_id -> BigInt,
        currency -> Text,
        subtotal_cents -> BigInt,
        tax_cents -> BigInt,
        total_cents -> BigInt,
        interval_unit -> Text,
        interval_count -> Integer,
        start_date -> Date,
        end_date -> Nullable<Date>,
        occurrences -> Nullable<Integer>,
        payment_terms -> Text,
        notes -> Nullable<Text>,
        metadata -> Text,
        auto_send -> Bool,
        email -> Bool,
        status -> Text,
        next_period -> Integer,
        next_issue_date -> Nullable<Date>,
        invoices_created -> Integer,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    credit_notes (id) {
        id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        number -> Text,
        invoice_id -> BigInt,
        customer_id -> BigInt,
        currency -> Text,
        reason -> Text,
        memo -> Nullable<Text>,
        subtotal_cents -> BigInt,
        tax_cents -> BigInt,
        total_cents -> BigInt,
        refund_due_cents -> BigInt,
        created_at -> Timestamp,
        refs -> Nullable<Text>,
    }
}

diesel::table! {
    emails (id) {
        id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        kind -> Text,
        invoice_id -> Nullable<BigInt>,
        quotation_id -> Nullable<BigInt>,
        credit_note_id -> Nullable<BigInt>,
        recipients -> Text,
        cc -> Text,
        subject -> Text,
        message -> Nullable<Text>,
        state -> Text,
        attempts -> Integer,
        last_error -> Nullable<Text>,
        message_id -> Nullable<Text>,
        sent_at -> Nullable<Timestamp>,
        next_attempt_at -> Timestamp,
        claim -> Nullable<Text>,
        locked_until -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        refused_recipients -> Text,
        customer_id -> Nullable<BigInt>,
        statement_currency -> Nullable<Text>,
        statement_from -> Nullable<Date>,
        statement_to -> Nullable<Date>,
    }
}

diesel::table! {
    booked_days (account_id, livemode, currency, day, tax_rate_milli, tax_category) {
        account_id -> BigInt,
        livemode -> Bool,
        currency -> Text,
        day -> Date,
        tax_rate_milli -> BigInt,
        tax_category -> Text,
        taxable -> BigInt,
        tax -> BigInt,
    }
}

diesel::table! {
    collected_days (account_id, livemode, currency, day) {
        account_id -> BigInt,
        livemode -> Bool,
        currency -> Text,
        day -> Date,
        collected -> BigInt,
    }
}

diesel::table! {
    receivable_changes (account_id, livemode, currency, day) {
        account_id -> BigInt,
        livemode -> Bool,
        currency -> Text,
        day -> Date,
        delta -> BigInt,
    }
}

diesel::table! {
    invoice_reminders (account_id, invoice_id, offset_days) {
        account_id -> BigInt,
        invoice_id -> BigInt,
        offset_days -> Integer,
        email_id -> BigInt,
        created_at -> Timestamp,
    }
}

diesel::joinable!(webhook_deliveries -> webhook_endpoints (endpoint_id));
diesel::allow_tables_to_appear_in_same_query!(
    webhook_endpoints,
    webhook_deliveries,
    webhook_attempts,
    events
);

diesel::table! {
    products (id) {
        id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        name -> Text,
        description -> Nullable<Text>,
        unit_price_cents -> BigInt,
        currency -> Text,
        tax_rate_milli -> BigInt,
        active -> Bool,
        metadata -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    payments (id) {
        id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        invoice_id -> BigInt,
        customer_id -> BigInt,
        amount_cents -> BigInt,
        currency -> Text,
        status -> Text,
        method -> Text,
        reference -> Nullable<Text>,
        rejection_reason -> Nullable<Text>,
        metadata -> Text,
        verified_at -> Nullable<Timestamp>,
        rejected_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        collected_on -> Nullable<Date>,
        gateway -> Nullable<Text>,
        amount_refunded_cents -> BigInt,
    }
}

diesel::table! {
    idempotency_keys (account_id, livemode, idem_key) {
        account_id -> BigInt,
        livemode -> Bool,
        idem_key -> Text,
        method -> Text,
        path -> Text,
        body_sha256 -> Text,
        state -> Text,
        status_code -> Nullable<Integer>,
        response_body -> Nullable<Text>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    account_profiles (account_id, livemode) {
        account_id -> BigInt,
        livemode -> Bool,
        name -> Text,
        legal_name -> Nullable<Text>,
        email -> Nullable<Text>,
        phone -> Nullable<Text>,
        website -> Nullable<Text>,
        address -> Nullable<Text>,
        tax_id -> Nullable<Text>,
        payment_instructions -> Nullable<Text>,
        invoice_footer -> Nullable<Text>,
        locale -> Text,
        brand_color -> Nullable<Text>,
        default_currency -> Text,
        reminders -> Text,
        send_receipts -> Bool,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        vat_id -> Nullable<Text>,
        electronic_address -> Nullable<Text>,
        bank_account -> Nullable<Text>,
        contact -> Nullable<Text>,
        tax_rounding -> Text,
        time_zone -> Text,
    }
}

diesel::table! {
    account_logos (account_id, livemode) {
        account_id -> BigInt,
        livemode -> Bool,
        content_type -> Text,
        bytes -> Binary,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    document_logos (account_id, hash) {
        account_id -> BigInt,
        hash -> Text,
        content_type -> Text,
        bytes -> Binary,
    }
}

diesel::table! {
    users (id) {
        id -> BigInt,
        email -> Text,
        email_normalized -> Text,
        password_hash -> Nullable<Text>,
        password_changed_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        totp_secret -> Nullable<Text>,
        totp_last_step -> Nullable<BigInt>,
    }
}

diesel::table! {
    memberships (account_id, user_id) {
        account_id -> BigInt,
        user_id -> BigInt,
        role -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    user_sessions (id) {
        id -> BigInt,
        token_hash -> Text,
        user_id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        created_at -> Timestamp,
        last_seen_at -> Timestamp,
        password_entered_at -> Timestamp,
        second_factor_at -> Nullable<Timestamp>,
        pending_totp -> Nullable<Text>,
    }
}

diesel::table! {
    user_tokens (id) {
        id -> BigInt,
        token_hash -> Text,
        user_id -> BigInt,
        purpose -> Text,
        created_at -> Timestamp,
        expires_at -> Timestamp,
        account_id -> Nullable<BigInt>,
        role -> Nullable<Text>,
        invited_by -> Nullable<BigInt>,
        new_email -> Nullable<Text>,
    }
}

diesel::table! {
    recovery_codes (id) {
        id -> BigInt,
        user_id -> BigInt,
        code_hash -> Text,
        used_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    notices (id) {
        id -> BigInt,
        account_id -> Nullable<BigInt>,
        kind -> Text,
        recipient -> Text,
        locale -> Text,
        sender_name -> Text,
        subject -> Text,
        body -> Nullable<Text>,
        link -> Nullable<Text>,
        state -> Text,
        attempts -> Integer,
        last_error -> Nullable<Text>,
        sent_at -> Nullable<Timestamp>,
        next_attempt_at -> Timestamp,
        claim -> Nullable<Text>,
        locked_until -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    login_failures (id) {
        id -> BigInt,
        email -> Text,
        ip -> Text,
        failed_at -> Timestamp,
    }
}

diesel::joinable!(memberships -> users (user_id));
diesel::joinable!(user_sessions -> users (user_id));
diesel::allow_tables_to_appear_in_same_query!(users, memberships, user_sessions, user_tokens);
diesel::allow_tables_to_appear_in_same_query!(accounts, users);
diesel::allow_tables_to_appear_in_same_query!(accounts, memberships);
diesel::allow_tables_to_appear_in_same_query!(accounts, user_sessions);
diesel::allow_tables_to_appear_in_same_query!(accounts, user_tokens);
diesel::allow_tables_to_appear_in_same_query!(users, recovery_codes);
diesel::allow_tables_to_appear_in_same_query!(account_profiles, accounts);
diesel::allow_tables_to_appear_in_same_query!(account_profiles, customers);

diesel::table! {
    gateway_accounts (account_id, livemode, gateway) {
        account_id -> BigInt,
        livemode -> Bool,
        gateway -> Text,
        endpoint -> Text,
        publishable_key -> Text,
        secret_last4 -> Text,
        sealed_secret_key -> Text,
        sealed_webhook_secret -> Nullable<Text>,
        checked_at -> Nullable<Timestamp>,
        check_ok -> Bool,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    gateway_events (account_id, endpoint, event_id) {
        account_id -> BigInt,
        livemode -> Bool,
        endpoint -> Text,
        event_id -> Text,
        event_type -> Text,
        received_at -> Timestamp,
    }
}

diesel::table! {
    checkout_sessions (id) {
        id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        invoice_id -> BigInt,
        gateway -> Text,
        session_id -> Text,
        url -> Nullable<Text>,
        amount_cents -> BigInt,
        currency -> Text,
        status -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    refunds (id) {
        id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        payment_id -> BigInt,
        invoice_id -> BigInt,
        amount_cents -> BigInt,
        status -> Text,
        reason -> Nullable<Text>,
        gateway_refund_id -> Nullable<Text>,
        idempotency_key -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    payment_proofs (account_id, payment_id) {
        account_id -> BigInt,
        livemode -> Bool,
        payment_id -> BigInt,
        filename -> Text,
        content_type -> Text,
        size -> BigInt,
        bytes -> Binary,
        created_at -> Timestamp,
    }
}

diesel::table! {
    payment_requests (account_id, livemode, invoice_id) {
        account_id -> BigInt,
        livemode -> Bool,
        invoice_id -> BigInt,
        success_url -> Nullable<Text>,
        cancel_url -> Nullable<Text>,
        expires_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    invoices,
    payment_requests,
    payments,
    checkout_sessions
);

diesel::table! {
    portal_links (id) {
        id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        customer_id -> BigInt,
        token_hash -> Text,
        expires_at -> Timestamp,
        created_at -> Timestamp,
        asked -> Bool,
    }
}
