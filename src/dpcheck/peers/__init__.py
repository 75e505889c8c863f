"""Cross-checks of other implementations against dpcheck's exact values.

* :mod:`dpcheck.peers.diffprivlib_compare`: IBM diffprivlib 0.6.6's
  ``LaplaceTruncated``, ``LaplaceFolded`` and ``LaplaceBoundedDomain``
  (``dpcheck compare diffprivlib``; needs ``pip install 'dpcheck[peers]'``).
"""
