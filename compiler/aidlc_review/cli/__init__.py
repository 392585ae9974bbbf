"""The command line. Only this package knows about argv and exit codes.

Each ``cmd_*`` module registers its sub-parser with nothing but argparse at
import time; its handlers import the library lazily, so a fast path such as
``compile --check`` on an unchanged harness stays cheap.
"""
