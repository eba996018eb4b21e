# Times `report renewals`' SQL on SQLite over a synthetic ledger (N subscriptions x 10 periods, 5 % of
# purchases held by a second user): python3 scripts/renewals-sql-bench.py N OLD.sql NEW.sql, each file
# one SELECT (the statement of ReportSQL.renewals at two commits). Figures: docs/performance.md.
import sqlite3, time, random, os, sys
N = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
path = "/tmp/sqlbench.sqlite"
if os.path.exists(path): os.remove(path)
db = sqlite3.connect(path)
db.executescript("""
CREATE TABLE receipts (id INTEGER PRIMARY KEY, user_id TEXT, imported_at INTEGER, bundle_id TEXT);
CREATE TABLE subscriptions (user_id TEXT, original_transaction_id TEXT, receipt_id INTEGER, PRIMARY KEY (user_id, original_transaction_id)) WITHOUT ROWID;
CREATE TABLE renewals (user_id TEXT NOT NULL, period_key TEXT NOT NULL, transaction_id TEXT, original_transaction_id TEXT,
  web_order_line_item_id TEXT, product_id TEXT, purchase_date_ms INTEGER, expires_date_ms INTEGER, cancellation_date_ms INTEGER,
  is_trial_period INTEGER, is_in_intro_offer_period INTEGER, first_seen_run_id INTEGER, price_milliunits INTEGER, currency TEXT,
  storefront TEXT, offer_type INTEGER, offer_discount_type TEXT, offer_period TEXT, transaction_reason TEXT, ownership_type TEXT,
  environment TEXT, revocation_type TEXT, revocation_percentage INTEGER, refund_milliunits INTEGER, bundle_id TEXT,
  PRIMARY KEY (user_id, period_key)) WITHOUT ROWID;
CREATE INDEX renewals_otid ON renewals(original_transaction_id);
""")
rid = 0
rows = []
for i in range(N):
    otid = str(100000000000000000 + i * 100)
    users = ["u%d" % i] + (["v%d" % i] if random.random() < 0.05 else [])
    for u in users:
        rid += 1
        db.execute("INSERT INTO receipts VALUES (?,?,?,?)", (rid, u, rid, "com.example"))
        db.execute("INSERT INTO subscriptions VALUES (?,?,?)", (u, otid, rid))
        for p in range(10):
            t = str(int(otid) + p)
            rows.append((u, t, t, otid, t, "pro", p * 1000, p * 1000 + 999, None, 0, 0, 1, 9990, "USD", "USA", None, None, None, "RENEWAL", "PURCHASED", "Production", None, None, 0, None))
    if len(rows) > 50000:
        db.executemany("INSERT INTO renewals VALUES (" + ",".join("?" * 25) + ")", rows); rows = []
db.executemany("INSERT INTO renewals VALUES (" + ",".join("?" * 25) + ")", rows)
db.commit()
old, new = open(sys.argv[2]).read(), open(sys.argv[3]).read()
for name, sql in [("old", old), ("new", new), ("old", old), ("new", new)]:
    t = time.time(); n = sum(1 for _ in db.execute(sql)); print(name, n, "rows", round(time.time() - t, 2), "s")
