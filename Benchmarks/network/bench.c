/* The C peer: the same look-up through libmaxminddb directly (MMDB_lookup_sockaddr, then MMDB_aget_value for
 * latitude, longitude, accuracy_radius, city.names.en and country.iso_code, copying the two strings as the
 * Swift side does). The checksums (coordinates; radii and name lengths) must match the Swift side's. Usage: bench DB.mmdb ADDRESSES.txt REPETITIONS. Prints one JSON object. */
#include <arpa/inet.h>
#include <maxminddb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (unsigned long long)t.tv_sec * 1000000000ull + t.tv_nsec;
}

static int compare(const void *a, const void *b) {
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static const char *lat_path[] = {"location", "latitude", NULL};
static const char *lon_path[] = {"location", "longitude", NULL};
static const char *radius_path[] = {"location", "accuracy_radius", NULL};
static const char *city_path[] = {"city", "names", "en", NULL};
static const char *country_path[] = {"country", "iso_code", NULL};

typedef struct { struct sockaddr_storage address; } entry;

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: bench DB ADDRESSES REPS\n"); return 2; }
    int reps = atoi(argv[3]);
    FILE *file = fopen(argv[2], "r");
    if (!file) { perror(argv[2]); return 1; }
    size_t capacity = 1024, count = 0;
    entry *entries = malloc(capacity * sizeof(entry));
    char line[128];
    while (fgets(line, sizeof line, file)) {
        line[strcspn(line, "\n")] = 0;
        if (count == capacity) { capacity *= 2; entries = realloc(entries, capacity * sizeof(entry)); }
        memset(&entries[count], 0, sizeof(entry));
        struct sockaddr_in *v4 = (struct sockaddr_in *)&entries[count].address;
        struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&entries[count].address;
        if (inet_pton(AF_INET, line, &v4->sin_addr) == 1) { v4->sin_family = AF_INET; count++; }
        else if (inet_pton(AF_INET6, line, &v6->sin6_addr) == 1) { v6->sin6_family = AF_INET6; count++; }
    }
    fclose(file);
    double opens[21];
    MMDB_s mmdb;
    for (int i = 0; i < 21; i++) {
        unsigned long long start = now_ns();
        if (MMDB_open(argv[1], MMDB_MODE_MMAP, &mmdb) != MMDB_SUCCESS) { fprintf(stderr, "open failed\n"); return 1; }
        opens[i] = (now_ns() - start) / 1e6;
        MMDB_close(&mmdb);
    }
    qsort(opens, 21, sizeof(double), compare_double);
    MMDB_open(argv[1], MMDB_MODE_MMAP, &mmdb);
    size_t total = count * (size_t)reps;
    unsigned long long *samples = malloc(total * sizeof(unsigned long long));
    size_t n = 0, found = 0;
    double checksum = 0;
    unsigned long long detail = 0; /* accuracy radii (km) and the bytes of the city names and country codes */
    for (int r = 0; r < reps; r++) {
        for (size_t i = 0; i < count; i++) {
            unsigned long long start = now_ns();
            int gai = 0, error = 0;
            MMDB_lookup_result_s result = MMDB_lookup_sockaddr(&mmdb, (struct sockaddr *)&entries[i].address, &error);
            double lat = 0, lon = 0;
            int ok = 0;
            unsigned radius = 0;
            size_t names = 0;
            if (error == MMDB_SUCCESS && result.found_entry) {
                MMDB_entry_data_s data;
                if (MMDB_aget_value(&result.entry, &data, lat_path) == MMDB_SUCCESS && data.has_data) {
                    lat = data.double_value;
                    if (MMDB_aget_value(&result.entry, &data, lon_path) == MMDB_SUCCESS && data.has_data) {
                        lon = data.double_value;
                        ok = 1;
                        char *city = NULL, *country = NULL;
                        if (MMDB_aget_value(&result.entry, &data, city_path) == MMDB_SUCCESS && data.has_data)
                            city = strndup(data.utf8_string, data.data_size);
                        if (MMDB_aget_value(&result.entry, &data, country_path) == MMDB_SUCCESS && data.has_data)
                            country = strndup(data.utf8_string, data.data_size);
                        if (MMDB_aget_value(&result.entry, &data, radius_path) == MMDB_SUCCESS && data.has_data
                            && data.type == MMDB_DATA_TYPE_UINT16)
                            radius = data.uint16;
                        names = (city ? strlen(city) : 0) + (country ? strlen(country) : 0);
                        free(city);
                        free(country);
                    }
                }
            }
            (void)gai;
            samples[n++] = now_ns() - start;
            if (r == 0 && ok) { found++; checksum += lat + lon; detail += radius + names; }
        }
    }
    qsort(samples, n, sizeof(unsigned long long), compare);
    size_t p50 = n / 2, p99 = (size_t)(n * 0.99);
    if (p99 >= n) p99 = n - 1;
    printf("{\"impl\": \"c\", \"open_ms\": %f, \"p50_ns\": %llu, \"p99_ns\": %llu, \"lookups\": %zu, \"found\": %zu, "
           "\"checksum\": %.6f, \"detail\": %llu}\n", opens[10], samples[p50], samples[p99], n, found, checksum,
           detail);
    MMDB_close(&mmdb);
    return 0;
}
