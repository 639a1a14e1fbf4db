#include <string>
// Host unit tests of the boot hart's image-header checks.
#include <catch2/catch.hpp>

#include "hal/image_check.hpp"

namespace {

constexpr ts_cluster_desc window{0x80200000, 8u << 20, 4, 2, TS_CLUSTER_IO, 0};

ts_image_header good_header() {
    ts_image_header h{};
    h.magic = TS_IMAGE_MAGIC;
    h.cluster_id = 0;
    h.entry = window.window_base + 0x44;
    h.image_end = window.window_base + 0x60000;
    h.manifest = window.window_base + 0x4000;
    h.window_base = window.window_base;
    h.first_hart = window.first_hart;
    return h;
}

}  // namespace

TEST_CASE("a well-formed header passes", "[image]") {
    REQUIRE(hal::check_image_header(good_header(), 0, window) == hal::ImageError::none);
}

TEST_CASE("an empty window (a missing image is zero memory) is refused", "[image]") {
    REQUIRE(hal::check_image_header(ts_image_header{}, 0, window) == hal::ImageError::bad_magic);
}

TEST_CASE("an image linked for another cluster is refused", "[image]") {
    REQUIRE(hal::check_image_header(good_header(), 3, window) == hal::ImageError::wrong_cluster);
}

TEST_CASE("an image linked at another window is refused", "[image]") {
    auto h = good_header();
    h.window_base += 2u << 20;
    REQUIRE(hal::check_image_header(h, 0, window) == hal::ImageError::wrong_window);
}

TEST_CASE("an image linked for other harts is refused", "[image]") {
    auto h = good_header();
    h.first_hart = 0;
    REQUIRE(hal::check_image_header(h, 0, window) == hal::ImageError::wrong_harts);
}

TEST_CASE("an entry or end outside the window is refused", "[image]") {
    auto h = good_header();
    h.entry = window.window_base + window.window_size;
    REQUIRE(hal::check_image_header(h, 0, window) == hal::ImageError::entry_outside);
    h = good_header();
    h.image_end = window.window_base + window.window_size + 4096;
    REQUIRE(hal::check_image_header(h, 0, window) == hal::ImageError::entry_outside);
}

TEST_CASE("error texts are distinct", "[image]") {
    REQUIRE(std::string(hal::image_error_text(hal::ImageError::bad_magic)) !=
            hal::image_error_text(hal::ImageError::wrong_cluster));
}
