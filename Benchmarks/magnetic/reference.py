# Prints NOAA wmm-calculator 1.4.4 values (X Y Z H F D I dX dY dZ dD dI) for the rows of
# Tests/CoreLocationGeodesyTests/Magnetic/WMMOracleTests.swift. Run in a venv with `pip install wmm-calculator==1.4.4`.
from wmm import wmm_calc
import numpy as np
pts = [(45.0, -75.0, 0.0, 2026.0), (-33.9, 151.2, 0.5, 2028.25), (89.999, 30.0, 0, 2025.5),(-89.999, -120.0, 10, 2029.9), (60, 170, 300, 2026.7), (10, -170, 850, 2025.1), (51.5, -0.1, 0.02, 2025.9), (86.5, 150, 0, 2027)]
m = wmm_calc()
for lat, lon, h, t in pts:
    m.setup_env(lat, lon, h, unit="km", msl=False)
    m.setup_time(dyear=t)
    vals = [m.get_Bx()[0], m.get_By()[0], m.get_Bz()[0], m.get_Bh()[0], m.get_Bf()[0], m.get_Bdec()[0], m.get_Binc()[0], m.get_dBx()[0], m.get_dBy()[0], m.get_dBz()[0], m.get_dBdec()[0], m.get_dBinc()[0]]
    print(lat, lon, h, t, " ".join(f"{v:.10f}" for v in vals))
