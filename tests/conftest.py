"""Suite-wide test settings.

Hypothesis's per-example deadline is a timing assertion, and timing belongs in benchmarks/
(these machines are small and shared, so a deadline turns load into failures). Every
property test therefore runs without one; the number of examples stays per test.
"""

from hypothesis import settings

settings.register_profile("duyun", deadline=None)
settings.load_profile("duyun")
