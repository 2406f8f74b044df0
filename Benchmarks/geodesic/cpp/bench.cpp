// Times GeographicLib::Geodesic::WGS84().Inverse on the pairs in a binary file (little-endian float64
// quadruples lat1 lon1 lat2 lon2) and writes the distances (float64).
// Usage: geodesic-bench-cpp PAIRS.bin DISTANCES.bin REPETITIONS
#include <GeographicLib/Geodesic.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: geodesic-bench-cpp PAIRS.bin DISTANCES.bin REPETITIONS\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary | std::ios::ate);
  if (!in) { std::cerr << "cannot read " << argv[1] << "\n"; return 2; }
  std::streamsize bytes = in.tellg();
  in.seekg(0);
  std::vector<double> pairs(bytes / 8);
  in.read(reinterpret_cast<char*>(pairs.data()), bytes);
  const size_t count = pairs.size() / 4;
  const int reps = std::atoi(argv[3]);
  std::vector<double> distances(count);
  std::vector<double> times;
  double checksum = 0;
  const GeographicLib::Geodesic& g = GeographicLib::Geodesic::WGS84();
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < count; ++i) {
      double s12, azi1, azi2;
      g.Inverse(pairs[4 * i], pairs[4 * i + 1], pairs[4 * i + 2], pairs[4 * i + 3], s12, azi1, azi2);
      distances[i] = s12;
      checksum += azi1 + azi2;
    }
    auto t1 = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / count);
  }
  std::sort(times.begin(), times.end());
  std::ofstream out(argv[2], std::ios::binary);
  out.write(reinterpret_cast<const char*>(distances.data()), count * 8);
  std::printf("cpp ns_per_call_median %.1f all [", times[times.size() / 2]);
  for (size_t i = 0; i < times.size(); ++i) std::printf(i ? " %.1f" : "%.1f", times[i]);
  std::printf("] checksum %.17g\n", checksum);
  return 0;
}
