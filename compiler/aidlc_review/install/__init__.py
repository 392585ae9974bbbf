"""Add this plugin to a real upstream AI-DLC project (and take it out again).

The plugin's own harness is the source language; ``install`` lowers it into the
shapes upstream's engine accepts (``lower``), adds to upstream's core stages only
through delimited, removable blocks (``blocks``), pins stage numbers the way
upstream's compiler keeps them (``numbering``), records every byte it adds in one
ledger (``ledger``), and lets upstream's own generators rebuild what they derive
(``upstream``). ``uninstall`` reverses the ledger.
"""
