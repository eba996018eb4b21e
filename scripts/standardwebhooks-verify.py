#!/usr/bin/env python3
"""Checks webhook deliveries with the standard-webhooks project's own Python library
(PyPI standardwebhooks 1.1.0), an implementation independent of subrecon's signer.

Reads a JSON list on standard input, one object per delivery:
  {"secret": "whsec_...", "headers": {"webhook-id": ..., "webhook-timestamp": ..., "webhook-signature": ...},
   "body_base64": "..."}
and writes a JSON list of the same length:
  {"verified": true|false, "error": null|"why", "signature": "v1,..." (the library's own signature of
   that id, timestamp and body with that secret, or null when the headers lack them)}
The secrets travel on standard input, never in arguments. Used by Tests/TestSupport/StandardWebhooksVerifier.swift;
scripts/standardwebhooks-venv.sh installs the library.
"""
import base64
import json
import sys
from datetime import datetime, timezone

from standardwebhooks import Webhook


def check(item):
    webhook = Webhook(item["secret"])
    body = base64.b64decode(item["body_base64"])
    headers = item["headers"]
    lower = {k.lower(): v for (k, v) in headers.items()}
    signature = None
    if lower.get("webhook-id") is not None and lower.get("webhook-timestamp", "").isdigit():
        when = datetime.fromtimestamp(int(lower["webhook-timestamp"]), tz=timezone.utc)
        signature = webhook.sign(lower["webhook-id"], when, body.decode())
    try:
        webhook.verify(body, headers, json_parse=False)
        return {"verified": True, "error": None, "signature": signature}
    except Exception as error:  # the library's verification errors, or a header it cannot split
        return {"verified": False, "error": f"{type(error).__name__}: {error}", "signature": signature}


json.dump([check(item) for item in json.load(sys.stdin)], sys.stdout)
