"""Stock levels and reservations for the warehouse team."""

from inventory.ledger import OutOfStock, StockLedger

__all__ = ["OutOfStock", "StockLedger"]
