import json

from inventory import StockLedger
from inventory.http import handle_reserve


def test_reserve_answers_409_when_out_of_stock():
    ledger = StockLedger()
    status, body = handle_reserve(ledger, json.dumps({"sku": "SKU-9", "quantity": 1}).encode())
    assert status == 409
    assert body["available"] == 0
