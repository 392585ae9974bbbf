"""The record and its receipts: the findings document, seals, receipts, waivers, the audit, and
the one verification recomputed from the bytes.
"""
