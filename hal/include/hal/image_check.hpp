// Checks of a cluster image's header, made by the boot hart before any hart
// enters the image. Pure and constexpr, so the host unit tests run them too.
#pragma once

#include <tessera/image.h>

namespace hal {

enum class ImageError { none, bad_magic, wrong_cluster, wrong_window, wrong_harts, entry_outside };

/// What is wrong with the header `h` found at the base of `cluster`'s
/// window `w`, or ImageError::none.
constexpr ImageError check_image_header(const ts_image_header &h, uint32_t cluster,
                                        const ts_cluster_desc &w) {
    if (h.magic != TS_IMAGE_MAGIC) return ImageError::bad_magic;
    if (h.cluster_id != cluster) return ImageError::wrong_cluster;
    if (h.window_base != w.window_base) return ImageError::wrong_window;
    if (h.first_hart != w.first_hart) return ImageError::wrong_harts;
    const uint64_t end = w.window_base + w.window_size;
    if (h.entry < w.window_base || h.entry >= end || h.image_end > end || h.manifest < w.window_base ||
        h.manifest >= end)
        return ImageError::entry_outside;
    return ImageError::none;
}

/// A short text for an ImageError.
constexpr const char *image_error_text(ImageError e) {
    switch (e) {
    case ImageError::none: return "ok";
    case ImageError::bad_magic: return "bad image magic";
    case ImageError::wrong_cluster: return "image linked for another cluster";
    case ImageError::wrong_window: return "image linked at another window";
    case ImageError::wrong_harts: return "image linked for other harts";
    case ImageError::entry_outside: return "entry, manifest or end outside the window";
    }
    return "?";
}

}  // namespace hal
