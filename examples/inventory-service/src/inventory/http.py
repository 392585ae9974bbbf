"""A thin JSON handler in front of the ledger, for the warehouse scanners."""

from __future__ import annotations

import json
import os

from inventory.ledger import OutOfStock, StockLedger


def handle_reserve(ledger: StockLedger, body: bytes) -> tuple[int, dict]:
    request = json.loads(body)
    sku, quantity = request["sku"], int(request["quantity"])
    try:
        ledger.reserve(sku, quantity)
    except OutOfStock as exc:
        return 409, {"error": str(exc), "available": exc.available}
    return 200, {"sku": sku, "reserved": quantity, "available": ledger.available(sku)}

def handle_stock(ledger: StockLedger, sku: str) -> tuple[int, dict]:
    return 200, {"sku": sku, "available": ledger.available(sku),
                 "on_hand": ledger.on_hand.get(sku,0)}
