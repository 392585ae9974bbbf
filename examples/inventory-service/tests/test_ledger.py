import pytest

from inventory import OutOfStock, StockLedger


def test_receive_then_reserve_reduces_availability():
    ledger = StockLedger()
    ledger.receive("SKU-1", 10)
    ledger.reserve("SKU-1", 4)
    assert ledger.available("SKU-1") == 6


def test_reserving_more_than_available_is_refused():
    ledger = StockLedger()
    ledger.receive("SKU-1", 2)
    with pytest.raises(OutOfStock) as refused:
        ledger.reserve("SKU-1", 3)
    assert refused.value.available == 2


def test_release_never_goes_negative():
    ledger = StockLedger()
    ledger.receive("SKU-1", 5)
    ledger.reserve("SKU-1", 1)
    ledger.release("SKU-1", 3)
    assert ledger.reserved["SKU-1"] == 0
