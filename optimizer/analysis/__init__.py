"""Stage 7, analysis: questions answered with many solves or none.

Break-even (rent versus buy per GPU type, arithmetic only), sweeps over a
parameter (local spawn pool or Dask, through ``executors``) and the sweep
workbook. Takes scenarios and settings; hands on typed rows and workbooks.
"""
