//! Roles (SPEC §21): what a member of an account may do there, as one table over the API's
//! resources, so the dashboard asks the same question an API key's scopes answer.

use crate::api_key::{Access, ApiResource};
use serde::Serialize;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Everything, including users, API keys, webhooks and the profile.
    Owner,
    /// The business's documents and records: read and write.
    Staff,
    /// What staff may read, changing nothing.
    Viewer,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Owner, Role::Staff, Role::Viewer];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Staff => "staff",
            Role::Viewer => "viewer",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// Whether this role may `access` `resource`. Write implies read.
    pub fn allows(self, resource: ApiResource, access: Access) -> bool {
        match self {
            Role::Owner => true,
            Role::Staff => staff_access(resource).is_some_and(|granted| granted >= access),
            Role::Viewer => access == Access::Read && staff_access(resource).is_some(),
        }
    }

    /// Users and API keys are no API resource: only owners manage them (SPEC §21).
    pub fn manages_users_and_keys(self) -> bool {
        match self {
            Role::Owner => true,
            Role::Staff | Role::Viewer => false,
        }
    }
}

/// The most staff may do with each resource; viewers get its reads. Every resource is spelled
/// out, so a new one must be placed here on purpose.
///
/// Events and emails are read-only for staff (and readable by viewers): an invoice's detail shows
/// its emails and its event timeline (SPEC §21, Invoices), so they are part of the documents staff
/// work on. Writing to them is not a thing: events are written by the changes they record, and
/// sending an email needs the document's write. The account-wide email log sits among the owners'
/// settings as a screen; that places it, it does not hide it.
fn staff_access(resource: ApiResource) -> Option<Access> {
    match resource {
        ApiResource::Customers
        | ApiResource::Invoices
        | ApiResource::Quotations
        | ApiResource::Payments
        | ApiResource::Products
        | ApiResource::CreditNotes
        | ApiResource::RecurringInvoices => Some(Access::Write),
        ApiResource::Events | ApiResource::Emails => Some(Access::Read),
        ApiResource::Account | ApiResource::Webhooks => None,
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ApiResource as R;

    /// SPEC §21 as a table: (resource, staff, viewer); "rw" read and write, "r" read, "" none.
    const TABLE: [(ApiResource, &str, &str); 11] = [
        (R::Customers, "rw", "r"),
        (R::Invoices, "rw", "r"),
        (R::Quotations, "rw", "r"),
        (R::Payments, "rw", "r"),
        (R::Products, "rw", "r"),
        (R::CreditNotes, "rw", "r"),
        (R::RecurringInvoices, "rw", "r"),
        (R::Events, "r", "r"),
        (R::Emails, "r", "r"),
        (R::Account, "", ""),
        (R::Webhooks, "", ""),
    ];

    fn grants(role: Role, resource: ApiResource) -> String {
        let mut s = String::new();
        if role.allows(resource, Access::Read) {
            s.push('r');
        }
        if role.allows(resource, Access::Write) {
            s.push('w');
        }
        s
    }

    #[test]
    fn the_whole_table() {
        assert_eq!(TABLE.len(), ApiResource::ALL.len());
        for resource in ApiResource::ALL {
            let (_, staff, viewer) = TABLE
                .iter()
                .find(|(r, _, _)| *r == resource)
                .unwrap_or_else(|| panic!("{resource:?} is missing from the table"));
            assert_eq!(grants(Role::Owner, resource), "rw", "owner on {resource:?}");
            assert_eq!(
                grants(Role::Staff, resource),
                *staff,
                "staff on {resource:?}"
            );
            assert_eq!(
                grants(Role::Viewer, resource),
                *viewer,
                "viewer on {resource:?}"
            );
        }
    }

    #[test]
    fn only_owners_manage_users_and_keys() {
        assert!(Role::Owner.manages_users_and_keys());
        assert!(!Role::Staff.manages_users_and_keys());
        assert!(!Role::Viewer.manages_users_and_keys());
    }

    #[test]
    fn parses_what_it_prints() {
        for role in Role::ALL {
            assert_eq!(Role::parse(role.as_str()), Some(role));
            assert_eq!(role.to_string(), role.as_str());
        }
        assert_eq!(Role::parse("Owner"), None);
        assert_eq!(Role::parse("admin"), None);
        assert_eq!(serde_json::to_value(Role::Staff).unwrap(), "staff");
    }
}
