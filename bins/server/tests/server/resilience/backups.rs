//! Backups and restores of the embedded database (SPEC §24), on the built binary: a backup taken
//! while clients write, a restore into an emptied data directory, a backup killed midway, the
//! server's own schedule, and the files a restore must refuse.

use super::common::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Runs `script` on the SQLite file at `path` with Python's sqlite3 (outside this binary).
fn sqlite(path: &Path, script: &str) -> String {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nr = c.executescript(sys.argv[2]) if not sys.argv[2].startswith(('SELECT', 'PRAGMA')) else c.execute(sys.argv[2]).fetchone()\nc.commit()\nprint(r[0] if isinstance(r, tuple) else '')",
        ])
        .arg(path)
        .arg(script)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn integrity(path: &Path) -> String {
    sqlite(path, "PRAGMA integrity_check")
}

/// The CLI's exit status and output, success or not.
fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (bool, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .env("DATABASE_URL", db_url(dir))
        .env("RUST_LOG", "warn")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// No rate limit in the way of eight clients writing as fast as they can, and a webhook
/// endpoint on loopback.
const UNLIMITED: &[(&str, &str)] = &[
    ("RATE_LIMIT_PER_MINUTE", "1000000"),
    ("RATE_LIMIT_BURST", "100000"),
    ("WEBHOOK_ALLOW_PRIVATE_TARGETS", "true"),
];

fn database(dir: &Path) -> PathBuf {
    dir.join("invoicing.db")
}

fn invoice_body(i: usize) -> Value {
    json!({
        "customer": {"name": format!("Client {i}"), "email": format!("c{i}@example.com")},
        "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": 1000 + i}]
    })
}

/// Every invoice's id and number, through the API's pages.
fn all_invoices(agent: &ureq::Agent, server: &Server, key: &str) -> Vec<(i64, String)> {
    let mut out = Vec::new();
    for page in 1.. {
        let url = format!("{}/api/v1/invoices?per_page=100&page={page}", server.https);
        let (status, body, _) = call(agent, "GET", &url, Some(key), None);
        assert_eq!(status, 200, "{body}");
        let data = body["data"].as_array().unwrap();
        out.extend(data.iter().map(|i| {
            (
                i["id"].as_i64().unwrap(),
                i["invoice_number"].as_str().unwrap().to_string(),
            )
        }));
        if !body["has_more"].as_bool().unwrap() {
            break;
        }
    }
    out
}

fn sequence(number: &str) -> i64 {
    number.rsplit('-').next().unwrap().parse().unwrap()
}

#[test]
fn a_backup_taken_under_writes_restores_everything_acknowledged_before_it() {
    let dir = data_dir("backup-restore");
    let server = start_with(&dir, UNLIMITED);
    let key = server.printed_key().unwrap();
    let agent = bounded_agent(&dir);
    let hook = format!("{}/api/v1/webhooks", server.https);
    let receiver = receiver::Receiver::start(204);
    let (status, endpoint, _) = call(
        &agent,
        "POST",
        &hook,
        Some(&key),
        Some(json!({"url": receiver.url, "events": ["invoice.created"]})),
    );
    assert_eq!(status, 201, "{endpoint}");
    // Eight clients create invoices until told to stop; each remembers what was acknowledged.
    let stop = Arc::new(AtomicBool::new(false));
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let clients: Vec<_> = (0..8)
        .map(|c| {
            let (agent, url, key) = (
                agent.clone(),
                format!("{}/api/v1/invoices", server.https),
                key.clone(),
            );
            let (stop, acknowledged) = (stop.clone(), acknowledged.clone());
            std::thread::spawn(move || {
                let mut i = c * 10_000;
                while !stop.load(Ordering::Relaxed) {
                    i += 1;
                    let (status, body, _) =
                        call(&agent, "POST", &url, Some(&key), Some(invoice_body(i)));
                    assert_eq!(status, 201, "no 503 under eight writers: {body}");
                    acknowledged
                        .lock()
                        .unwrap()
                        .push(body["id"].as_i64().unwrap());
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(1500));
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let before: Vec<i64> = loop {
        let before = acknowledged.lock().unwrap().clone();
        if before.len() > 20 {
            break before;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the clients were writing: {}",
            before.len()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let backup = dir.join("backups/first.db");
    let written = cli(&dir, &["backup", "--to", backup.to_str().unwrap()]);
    assert_eq!(written["path"], backup.to_str().unwrap());
    assert_eq!(
        written["bytes"].as_u64().unwrap(),
        std::fs::metadata(&backup).unwrap().len()
    );
    assert!(written["took_ms"].is_u64());
    std::thread::sleep(Duration::from_millis(500));
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while acknowledged.lock().unwrap().len() <= before.len() {
        assert!(
            std::time::Instant::now() < deadline,
            "no write acknowledged after the backup began"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    stop.store(true, Ordering::Relaxed);
    for c in clients {
        c.join().unwrap();
    }
    let after = acknowledged.lock().unwrap().len();
    assert!(after > before.len(), "writes went on during the backup");
    assert_eq!(integrity(&backup), "ok");
    assert!(!backup.with_file_name(".first.db.partial").exists());
    server.stop();

    // The data directory loses its database; the backup goes back in its place.
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", database(&dir).display()));
    }
    let restored = cli(&dir, &["restore", "--from", backup.to_str().unwrap()]);
    assert_eq!(restored["kept"], Value::Null, "there was nothing to keep");
    assert_eq!(restored["migrated"], json!([]));
    let server = start_with(&dir, UNLIMITED);
    let invoices = all_invoices(&agent, &server, &key);
    let ids: std::collections::HashSet<i64> = invoices.iter().map(|i| i.0).collect();
    for id in &before {
        assert!(
            ids.contains(id),
            "invoice {id}, acknowledged before the backup, is back"
        );
    }
    // Numbers have no gap, and the next one follows the last in the backup.
    let mut numbers: Vec<i64> = invoices.iter().map(|i| sequence(&i.1)).collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=numbers.len() as i64).collect::<Vec<_>>());
    let url = format!("{}/api/v1/invoices", server.https);
    let (status, next, _) = call(&agent, "POST", &url, Some(&key), Some(invoice_body(0)));
    assert_eq!(status, 201, "the key still works: {next}");
    assert_eq!(
        sequence(next["invoice_number"].as_str().unwrap()),
        numbers.len() as i64 + 1
    );
    let hooks_url = format!("{}/api/v1/webhooks", server.https);
    let (status, hooks, _) = call(&agent, "GET", &hooks_url, Some(&key), None);
    assert_eq!(status, 200);
    assert_eq!(
        hooks["data"][0]["id"], endpoint["id"],
        "the webhook endpoint is back"
    );
    // It still works: the new invoice's event reaches the receiver.
    let number = next["invoice_number"].as_str().unwrap().to_string();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !receiver.received().iter().any(|r| r.body.contains(&number)) {
        assert!(
            std::time::Instant::now() < deadline,
            "no delivery of {number} after the restore"
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    // A restore over a database keeps it beside the backup it puts in place.
    server.stop();
    let restored = cli(&dir, &["restore", "--from", backup.to_str().unwrap()]);
    let kept = PathBuf::from(restored["kept"].as_str().unwrap());
    assert_eq!(integrity(&kept), "ok");
    assert_eq!(kept.parent(), database(&dir).parent());
}

#[test]
fn a_backup_killed_midway_leaves_nothing_under_its_name() {
    let dir = data_dir("backup-killed");
    let server = start(&dir);
    let backup = dir.join("killed.db");
    let (ok, _, err) = run(
        &dir,
        &["backup", "--to", backup.to_str().unwrap()],
        &[("INVOICING_FAILPOINT", "backup.before_rename")],
    );
    assert!(!ok && err.contains("failpoint"), "{err}");
    assert!(!backup.exists(), "nothing under the final name");
    // The next backup replaces the half-made copy and succeeds.
    let written = cli(&dir, &["backup", "--to", backup.to_str().unwrap()]);
    assert_eq!(written["path"], backup.to_str().unwrap());
    assert!(!dir.join(".killed.db.partial").exists());
    assert_eq!(integrity(&backup), "ok");
    drop(server);
}

#[test]
fn the_server_takes_scheduled_backups_and_keeps_the_newest_n() {
    let dir = data_dir("backup-schedule");
    let backups = dir.join("scheduled");
    let server = start_with(
        &dir,
        &[
            ("BACKUP_DIR", backups.to_str().unwrap()),
            ("BACKUP_INTERVAL", "1s"),
            ("BACKUP_KEEP", "3"),
        ],
    );
    let listed = || {
        let mut names: Vec<String> = std::fs::read_dir(&backups)
            .map(|d| {
                d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .filter(|n| n.starts_with("invoicing-") && n.ends_with(".db"))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    // Five periods or more pass; three stay. A backup is written under its name before the old
    // ones go: stop the server only once the newest has been pruned after, not between the two.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let mut seen = std::collections::BTreeSet::new();
    loop {
        let now = listed();
        seen.extend(now.iter().cloned());
        if seen.len() >= 5 && now.len() == 3 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "backups seen: {seen:?}, listed: {now:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    drop(server);
    let kept = listed();
    assert_eq!(kept.len(), 3, "{kept:?}");
    assert_eq!(
        kept,
        seen.iter().rev().take(3).rev().cloned().collect::<Vec<_>>()
    );
    for name in kept {
        assert_eq!(integrity(&backups.join(name)), "ok");
    }
}

#[test]
fn a_restore_refuses_bad_files_and_a_database_in_use_and_changes_nothing() {
    let dir = data_dir("restore-refusals");
    let server = start(&dir);
    let backup = dir.join("good.db");
    cli(&dir, &["backup", "--to", backup.to_str().unwrap()]);
    let restore = |from: &Path| run(&dir, &["restore", "--from", from.to_str().unwrap()], &[]);
    // A server is using the database.
    let (ok, _, err) = restore(&backup);
    assert!(!ok && err.contains("using"), "{err}");
    server.stop();
    let db_bytes = || std::fs::read(database(&dir)).unwrap();
    let before = db_bytes();
    let bytes = std::fs::read(&backup).unwrap();
    let truncated = dir.join("truncated.db");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let foreign = dir.join("foreign.db");
    std::fs::write(&foreign, b"PK\x03\x04 not a database at all").unwrap();
    let stranger = dir.join("stranger.db");
    sqlite(&stranger, "CREATE TABLE t (x);");
    for (file, says) in [
        (&truncated, "check"),
        (&foreign, "not an SQLite database"),
        (&stranger, "not a backup of this service"),
    ] {
        let (ok, _, err) = restore(file);
        assert!(!ok && err.contains(says), "{}: {err}", file.display());
        assert_eq!(db_bytes(), before, "{} changed nothing", file.display());
    }
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("before-restore") || n.ends_with(".partial"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn the_export_command_writes_a_whole_archive_of_one_account() {
    let dir = data_dir("export-command");
    let server = start(&dir);
    let key = server.printed_key().unwrap();
    let agent = bounded_agent(&dir);
    let url = format!("{}/api/v1/invoices", server.https);
    let (status, made, _) = call(&agent, "POST", &url, Some(&key), Some(invoice_body(1)));
    assert_eq!(status, 201, "{made}");
    let send = format!("{url}/{}/send", made["id"]);
    let (status, _, _) = call(&agent, "POST", &send, Some(&key), None);
    assert_eq!(status, 200);
    let zip = dir.join("out/acme.zip");
    std::fs::create_dir_all(zip.parent().unwrap()).unwrap();
    // While the server runs, beside it.
    let done = cli(
        &dir,
        &[
            "export",
            "--account",
            "1",
            "--env",
            "test",
            "--to",
            zip.to_str().unwrap(),
        ],
    );
    assert_eq!(done["files"]["invoices.jsonl"], 1);
    assert_eq!(done["pdfs"], 1);
    assert_eq!(
        done["bytes"].as_u64().unwrap(),
        std::fs::metadata(&zip).unwrap().len()
    );
    let out = Command::new("python3")
        .args([
            "-c",
            "import zipfile, sys; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print(' '.join(sorted(z.namelist())))",
        ])
        .arg(&zip)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names = String::from_utf8_lossy(&out.stdout);
    assert!(
        names.contains("invoices.jsonl")
            && names.contains(&format!(
                "pdf/invoices/{}.pdf",
                made["invoice_number"].as_str().unwrap()
            )),
        "{names}"
    );
    assert!(!dir.join("out/.acme.zip.partial").exists());
    // An account that does not exist: an error, and no file.
    let (ok, _, err) = run(
        &dir,
        &[
            "export",
            "--account",
            "999",
            "--env",
            "test",
            "--to",
            dir.join("none.zip").to_str().unwrap(),
        ],
        &[],
    );
    assert!(!ok && err.contains("999"), "{err}");
    assert!(!dir.join("none.zip").exists());
    drop(server);
}

#[test]
fn on_postgres_a_backup_is_a_checked_pg_dump() {
    let Some(db) = invoicing_storage::testing::TestDb::new(invoicing_storage::Backend::Postgres)
    else {
        return;
    };
    let dir = data_dir("backup-postgres");
    let dump = dir.join("nightly.dump");
    let written = cli_on(&db.url, &["backup", "--to", dump.to_str().unwrap()]);
    assert_eq!(written["path"], dump.to_str().unwrap());
    let listed = Command::new("pg_restore")
        .arg("--list")
        .arg(&dump)
        .output()
        .unwrap();
    assert!(listed.status.success());
    assert!(String::from_utf8_lossy(&listed.stdout).contains("TABLE public invoices"));
    assert!(!dir.join(".nightly.dump.partial").exists());
}

#[test]
fn a_restore_migrates_an_older_backup_forward_and_refuses_a_newer_one() {
    let dir = data_dir("restore-versions");
    let server = start(&dir);
    let key = server.printed_key().unwrap();
    let agent = bounded_agent(&dir);
    let url = format!("{}/api/v1/invoices", server.https);
    let (status, made, _) = call(&agent, "POST", &url, Some(&key), Some(invoice_body(1)));
    assert_eq!(status, 201, "{made}");
    let old = dir.join("old.db");
    cli(&dir, &["backup", "--to", old.to_str().unwrap()]);
    let newer = dir.join("newer.db");
    std::fs::copy(&old, &newer).unwrap();
    server.stop();
    // The backup as the previous version left it: the newest migration undone, its row gone.
    let migrations = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations/sqlite");
    let mut names: Vec<String> = std::fs::read_dir(&migrations)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let newest = names.last().unwrap();
    let down = std::fs::read_to_string(migrations.join(newest).join("down.sql")).unwrap();
    let version = sqlite(&old, "SELECT max(version) FROM __diesel_schema_migrations");
    sqlite(
        &old,
        &format!("{down}\nDELETE FROM __diesel_schema_migrations WHERE version = '{version}';"),
    );
    let restored = cli(&dir, &["restore", "--from", old.to_str().unwrap()]);
    assert_eq!(restored["migrated"], json!([version]), "{restored}");
    let server = start(&dir);
    let url = format!("{}/api/v1/invoices", server.https);
    let (status, got, _) = call(
        &agent,
        "GET",
        &format!("{url}/{}", made["id"]),
        Some(&key),
        None,
    );
    assert_eq!(status, 200, "{got}");
    let today = chrono::Utc::now().date_naive();
    let revenue = format!(
        "{}/api/v1/reports/revenue?from={}&to={today}&interval=month",
        server.https,
        today.format("%Y-%m-01")
    );
    let (status, report, _) = call(&agent, "GET", &revenue, Some(&key), None);
    assert_eq!(status, 200, "the migrated tables answer: {report}");
    server.stop();
    // One made by a newer server: a migration this binary does not know.
    sqlite(
        &newer,
        "INSERT INTO __diesel_schema_migrations (version) VALUES ('99991231000000');",
    );
    let before = std::fs::read(database(&dir)).unwrap();
    let (ok, _, err) = run(&dir, &["restore", "--from", newer.to_str().unwrap()], &[]);
    assert!(
        !ok && err.contains("newer version") && err.contains("99991231000000"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(database(&dir)).unwrap(),
        before,
        "nothing changed"
    );
}
