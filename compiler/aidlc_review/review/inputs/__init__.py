"""What a review starts from: the record's paths, the active intent, the unit's claimed source,
the workspace's settings and the compiled review plan.
"""
