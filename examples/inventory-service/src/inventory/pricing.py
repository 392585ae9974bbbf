"""Bulk pricing for reserved stock: tiered discounts by quantity."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

TIERS = ((100, Decimal("0.15")), (50, Decimal("0.10")), (10, Decimal("0.05")))


def discount_rate(quantity: int) -> Decimal:
    for minimum, rate in TIERS:
        if quantity >= minimum:
            return rate
    return Decimal("0")


def order_total(unit_price: Decimal, quantity: int) -> Decimal:
    if quantity <= 0:
        raise ValueError(f"quantity must be positive, got {quantity}")
    gross = unit_price * quantity
    net = gross * (Decimal("1") - discount_rate(quantity))
    return net.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def price_list(unit_price: Decimal, quantities: list[int]) -> dict[int, Decimal]:
    return {quantity: order_total(unit_price, quantity) for quantity in quantities}
