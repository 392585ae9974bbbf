"""The stock ledger: on-hand quantities per SKU and the reservations held against them."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field


class OutOfStock(Exception):
    """A reservation asked for more than is available."""

    def __init__(self, sku: str, wanted: int, available: int):
        super().__init__(f"{sku}: wanted {wanted}, only {available} available")
        self.sku = sku
        self.wanted = wanted
        self.available = available


@dataclass
class StockLedger:
    on_hand: dict[str, int] = field(default_factory=dict)
    reserved: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def receive(self, sku: str, quantity: int) -> None:
        if quantity <= 0:
            raise ValueError(f"{sku}: received quantity must be positive, got {quantity}")
        with self._lock:
            self.on_hand[sku] = self.on_hand.get(sku, 0) + quantity

    def available(self, sku: str) -> int:
        return self.on_hand.get(sku, 0) - self.reserved.get(sku, 0)

    def reserve(self, sku: str, quantity: int) -> None:
        if quantity <= 0:
            raise ValueError(f"{sku}: reserved quantity must be positive, got {quantity}")
        with self._lock:
            available = self.available(sku)
            if quantity > available:
                raise OutOfStock(sku, quantity, available)
            self.reserved[sku] = self.reserved.get(sku, 0) + quantity

    def release(self, sku: str, quantity: int) -> None:
        with self._lock:
            held = self.reserved.get(sku, 0)
            self.reserved[sku] = max(0, held - quantity)
