"""Agents are untrusted programs: how they are reached and supervised, what they are told
(briefs), and how their answers are unwrapped and checked.
"""
