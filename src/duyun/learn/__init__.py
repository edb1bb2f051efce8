"""Learning from self-play (issue 35): labelled positions, opponent and value models.

- :mod:`duyun.learn.features`: the compact feature set of a position from one seat's view,
  and the hidden truth that labels it (no third-party import);
- :mod:`duyun.learn.dataset`: ``duyun learn generate``, positions from self-play into
  NumPy ``.npz`` shards, deterministic by seed;
- :mod:`duyun.learn.models`: the trained models at play time, NumPy only;
- :mod:`duyun.learn.train`, :mod:`duyun.learn.evaluate`: training (scikit-learn, the
  ``train`` extra) and evaluation beside the bots' hand-written estimates.

Nothing here is imported by the engine, the bots or the server. See docs/rl.md ("Learned
models") and docs/research/learned-models.md.
"""
