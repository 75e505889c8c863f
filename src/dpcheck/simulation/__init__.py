"""The simulation studies of Liu (2019) §4.

Study 1 (§4.1, Figure 1) and study 2 (§4.2, Figures 2-5, S1-S2).

Modules, one job each:

* :mod:`.mechanisms` - the truncated and BIT draws for any s (also outside the bounds);
* :mod:`.summaries` - bias, RMSE, coverage and percentiles with Monte Carlo standard errors;
* :mod:`.covariance` - study 1, a sanitised 2x2 covariance matrix;
* :mod:`.universal_histogram` - the modified universal histogram of §4.2 (steps 1-5, footnote 3)
  and the constrained least-squares tree it is compared with;
* :mod:`.combining` - the multiple-synthesis combination rule of Liu (arXiv 1606.08052);
* :mod:`.proportions` - study 2, a sanitised proportion vector under sum(p) = 1;
* :mod:`.output` - CSV files and the printed summary.
"""
