/*
 * The properties of htj2kenc and ebcotcm: those of every coder, and the
 * coder's own (HT: bitrate, jph, refinement; Part 1: bitrate, layers,
 * code-block-style, frames-in-flight).  A change while playing takes
 * effect at the next frame, which is coded by an encoder made again.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstj2kenc.h"

/* every log call here names the element `self` */
#define GST_CAT_DEFAULT (GST_SCI_J2K_ENC_GET_CLASS (self)->debug)

enum
{
  PROP_0,
  PROP_REVERSIBLE,
  PROP_QSTEP,
  PROP_LEVELS,
  PROP_BLOCK_WIDTH,
  PROP_BLOCK_HEIGHT,
  PROP_PROGRESSION,
  PROP_COLOUR_TRANSFORM,
  PROP_BITRATE,
  PROP_JPH,
  PROP_LAYERS,
  PROP_CODE_BLOCK_STYLE,
  PROP_FRAMES_IN_FLIGHT,
  PROP_REFINEMENT,
  PROP_PLT,
};

#define DEFAULT_REVERSIBLE FALSE
#define DEFAULT_QSTEP (1.0 / 256)
#define DEFAULT_LEVELS 5
#define DEFAULT_BLOCK_SIZE 64
#define DEFAULT_PROGRESSION SCI_J2K_RPCL
#define DEFAULT_COLOUR GST_SCI_J2K_COLOUR_AUTO
#define DEFAULT_BITRATE 0.0
#define DEFAULT_JPH FALSE
#define DEFAULT_LAYERS 1
#define DEFAULT_CODE_BLOCK_STYLE 0
#define DEFAULT_FRAMES_IN_FLIGHT 2
#define DEFAULT_REFINEMENT SCI_HTJ2K_REF_NONE
#define DEFAULT_PLT FALSE

#define MAX_BITRATE 64.0

#define GST_TYPE_SCI_J2K_PROGRESSION (gst_sci_j2k_progression_get_type ())
static GType
gst_sci_j2k_progression_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {SCI_J2K_LRCP, "Layer-resolution-component-position", "lrcp"},
    {SCI_J2K_RLCP, "Resolution-layer-component-position", "rlcp"},
    {SCI_J2K_RPCL, "Resolution-position-component-layer", "rpcl"},
    {SCI_J2K_PCRL, "Position-component-resolution-layer", "pcrl"},
    {SCI_J2K_CPRL, "Component-position-resolution-layer", "cprl"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstSciJ2kProgression", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_SCI_J2K_COLOUR (gst_sci_j2k_colour_get_type ())
static GType
gst_sci_j2k_colour_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_SCI_J2K_COLOUR_AUTO, "RCT (reversible) or ICT (irreversible) when "
          "the input has 3 full-size components (RGB), else none", "auto"},
    {GST_SCI_J2K_COLOUR_NONE, "Code every component on its own", "none"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstSciJ2kColour", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_SCI_HTJ2K_REFINEMENT (gst_sci_htj2k_refinement_get_type ())
static GType
gst_sci_htj2k_refinement_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {SCI_HTJ2K_REF_NONE, "Cleanup pass only: every bit-plane in one pass",
        "none"},
    {SCI_HTJ2K_REF_SIGPROP, "Cleanup pass above the last bit-plane, the "
          "SigProp pass in it", "sigprop"},
    {SCI_HTJ2K_REF_ALL, "Cleanup pass above the last bit-plane, SigProp and "
          "MagRef passes in it", "all"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstSciHtj2kRefinement", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_SCI_J2K_CODE_BLOCK_STYLE \
  (gst_sci_j2k_code_block_style_get_type ())
static GType
gst_sci_j2k_code_block_style_get_type (void)
{
  static GType type = 0;
  static const GFlagsValue values[] = {
    {SCI_T1_BYPASS, "Selective arithmetic coding bypass: significance and "
          "refinement passes raw from the fifth coded bit-plane", "bypass"},
    {SCI_T1_RESET, "Reset context probabilities on each coding pass",
        "reset"},
    {SCI_T1_TERMALL, "Terminate the codeword on each coding pass", "termall"},
    {SCI_T1_VCAUSAL, "Vertically causal context formation", "vcausal"},
    {SCI_T1_PTERM, "Predictable termination", "pterm"},
    {SCI_T1_SEGSYM, "Segmentation symbols at the end of each cleanup pass",
        "segsym"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_flags_register_static ("GstSciJ2kCodeBlockStyle", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static void
gst_sci_j2k_enc_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstSciJ2kEnc *self = GST_SCI_J2K_ENC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_REVERSIBLE:
      self->reversible = g_value_get_boolean (value);
      break;
    case PROP_QSTEP:
      self->qstep = g_value_get_double (value);
      break;
    case PROP_LEVELS:
      self->levels = g_value_get_uint (value);
      break;
    case PROP_BLOCK_WIDTH:
      self->block_width = g_value_get_uint (value);
      break;
    case PROP_BLOCK_HEIGHT:
      self->block_height = g_value_get_uint (value);
      break;
    case PROP_PROGRESSION:
      self->progression = g_value_get_enum (value);
      break;
    case PROP_COLOUR_TRANSFORM:
      self->colour = g_value_get_enum (value);
      break;
    case PROP_BITRATE:
      self->bitrate = g_value_get_double (value);
      break;
    case PROP_JPH:
      self->jph = g_value_get_boolean (value);
      break;
    case PROP_REFINEMENT:
      self->refinement = g_value_get_enum (value);
      break;
    case PROP_PLT:
      self->plt = g_value_get_boolean (value);
      break;
    case PROP_LAYERS:
      self->layers = g_value_get_uint (value);
      break;
    case PROP_CODE_BLOCK_STYLE:
      self->cb_style = g_value_get_flags (value);
      break;
    case PROP_FRAMES_IN_FLIGHT:
      self->frames_in_flight = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      GST_OBJECT_UNLOCK (self);
      return;
  }
  /* jph changes the src caps, the others the encoder: both are made again
   * before the next frame */
  self->dirty = TRUE;
  GST_OBJECT_UNLOCK (self);
}

static void
gst_sci_j2k_enc_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstSciJ2kEnc *self = GST_SCI_J2K_ENC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_REVERSIBLE:
      g_value_set_boolean (value, self->reversible);
      break;
    case PROP_QSTEP:
      g_value_set_double (value, self->qstep);
      break;
    case PROP_LEVELS:
      g_value_set_uint (value, self->levels);
      break;
    case PROP_BLOCK_WIDTH:
      g_value_set_uint (value, self->block_width);
      break;
    case PROP_BLOCK_HEIGHT:
      g_value_set_uint (value, self->block_height);
      break;
    case PROP_PROGRESSION:
      g_value_set_enum (value, self->progression);
      break;
    case PROP_COLOUR_TRANSFORM:
      g_value_set_enum (value, self->colour);
      break;
    case PROP_BITRATE:
      g_value_set_double (value, self->bitrate);
      break;
    case PROP_JPH:
      g_value_set_boolean (value, self->jph);
      break;
    case PROP_REFINEMENT:
      g_value_set_enum (value, self->refinement);
      break;
    case PROP_PLT:
      g_value_set_boolean (value, self->plt);
      break;
    case PROP_LAYERS:
      g_value_set_uint (value, self->layers);
      break;
    case PROP_CODE_BLOCK_STYLE:
      g_value_set_flags (value, self->cb_style);
      break;
    case PROP_FRAMES_IN_FLIGHT:
      g_value_set_uint (value, self->frames_in_flight);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

void
gst_sci_j2k_enc_install_properties (GObjectClass * gobject_class)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  gobject_class->set_property = gst_sci_j2k_enc_set_property;
  gobject_class->get_property = gst_sci_j2k_enc_get_property;
  g_object_class_install_property (gobject_class, PROP_REVERSIBLE,
      g_param_spec_boolean ("reversible", "Reversible",
          "Lossless coding: 5/3 wavelet and RCT (3 components).  false: "
          "9/7 wavelet and ICT, quantised by qstep or bitrate.  With "
          "application/x-wavelet input it must agree with the caps' filter",
          DEFAULT_REVERSIBLE, flags));
  g_object_class_install_property (gobject_class, PROP_QSTEP,
      g_param_spec_double ("qstep", "Quantisation step",
          "Irreversible only: base quantisation step relative to the full "
          "sample range (as ojph_compress -qstep); each subband's step is "
          "this over its synthesis gain.  Smaller keeps more detail in more "
          "bytes; 2^-depth is one sample unit (the default 1/256: 8 bits); "
          "1e-9 is about the finest step that 30 bit-planes a subband "
          "allow", SCI_HTJ2K_MIN_QSTEP, 2.0, DEFAULT_QSTEP, flags));
  g_object_class_install_property (gobject_class, PROP_LEVELS,
      g_param_spec_uint ("levels", "Levels",
          "Wavelet decomposition levels, raw video input only (coefficients "
          "bring their own)", 0, SCI_DWT_MAX_LEVELS, DEFAULT_LEVELS, flags));
  g_object_class_install_property (gobject_class, PROP_BLOCK_WIDTH,
      g_param_spec_uint ("block-width", "Code-block width",
          "Code-block width: a power of two, 4..1024, with block-width x "
          "block-height <= 4096 (checked at negotiation)", MIN_BLOCK_SIZE,
          MAX_BLOCK_SIZE, DEFAULT_BLOCK_SIZE, flags));
  g_object_class_install_property (gobject_class, PROP_BLOCK_HEIGHT,
      g_param_spec_uint ("block-height", "Code-block height",
          "Code-block height: a power of two, 4..1024, with block-width x "
          "block-height <= 4096 (checked at negotiation)", MIN_BLOCK_SIZE,
          MAX_BLOCK_SIZE, DEFAULT_BLOCK_SIZE, flags));
  g_object_class_install_property (gobject_class, PROP_PROGRESSION,
      g_param_spec_enum ("progression", "Progression order",
          "Packet progression order of the codestream",
          GST_TYPE_SCI_J2K_PROGRESSION, DEFAULT_PROGRESSION, flags));
  g_object_class_install_property (gobject_class, PROP_COLOUR_TRANSFORM,
      g_param_spec_enum ("colour-transform", "Colour transform",
          "Component transform of raw video input: auto = RCT (reversible) or"
          " ICT when the input has 3 full-size components (RGB), none = code"
          " components independently", GST_TYPE_SCI_J2K_COLOUR, DEFAULT_COLOUR,
          flags));
  g_object_class_install_property (gobject_class, PROP_PLT,
      g_param_spec_boolean ("plt", "PLT markers",
          "Write PLT marker segments (each packet's length) in the "
          "tile-part header, so that RTP payloaders can split and repair at "
          "packet boundaries.  About a byte or two a packet; with bitrate "
          "they count against the target", DEFAULT_PLT, flags));
  gst_type_mark_as_plugin_api (GST_TYPE_SCI_J2K_PROGRESSION, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_SCI_J2K_COLOUR, 0);
}

void
gst_sci_j2k_enc_install_coder_properties (GObjectClass * gobject_class,
    sci_j2k_coder coder)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  /* GObject does not inherit these: the properties installed here are
   * the base's too */
  gobject_class->set_property = gst_sci_j2k_enc_set_property;
  gobject_class->get_property = gst_sci_j2k_enc_get_property;
  if (coder == SCI_J2K_CODER_HT) {
    g_object_class_install_property (gobject_class, PROP_BITRATE,
        g_param_spec_double ("bitrate", "Bit rate",
            "Irreversible only: target bits per pixel (the step meeting it "
            "replaces qstep); 0 = off.  With reversible=true negotiation "
            "fails", 0.0, MAX_BITRATE, DEFAULT_BITRATE, flags));
    g_object_class_install_property (gobject_class, PROP_JPH,
        g_param_spec_boolean ("jph", "JPH file",
            "Output the JPH file format (image/x-jph: JP2 signature, header "
            "boxes, codestream box) instead of the raw codestream "
            "(image/x-jpc)", DEFAULT_JPH, flags));
    g_object_class_install_property (gobject_class, PROP_REFINEMENT,
        g_param_spec_enum ("refinement", "HT refinement passes",
            "Irreversible only: code each block's cleanup pass one bit-plane "
            "above its last and that plane in refinement passes (sigprop: "
            "SigProp; all: SigProp and MagRef).  With bitrate the encoder "
            "drops those passes block by block to land at or just below the "
            "target (within 1 % measured; none lands within 0.5 % either "
            "side), for usually 0.1-0.5 dB less PSNR at a rate below 4 bpp: "
            "a sample of one step with no significant neighbour is not "
            "coded.  Decoders may also drop the passes.  Blocks are coded "
            "on the CPU (the CUDA backend runs the wavelet transform).  With "
            "reversible=true negotiation fails",
            GST_TYPE_SCI_HTJ2K_REFINEMENT, DEFAULT_REFINEMENT, flags));
    gst_type_mark_as_plugin_api (GST_TYPE_SCI_HTJ2K_REFINEMENT, 0);
  } else {
    g_object_class_install_property (gobject_class, PROP_BITRATE,
        g_param_spec_double ("bitrate", "Bit rate",
            "Target bits per pixel of the codestream, headers included, met "
            "by truncating code-blocks at their rate-distortion convex hull "
            "(PCRD); with reversible=true too (lossy 5/3).  With it the "
            "irreversible step is at most one sample unit.  0 = off: every "
            "coding pass is kept", 0.0, MAX_BITRATE, DEFAULT_BITRATE, flags));
    g_object_class_install_property (gobject_class, PROP_LAYERS,
        g_param_spec_uint ("layers", "Quality layers",
            "Quality layers: the last holds every pass (or meets bitrate), "
            "each one before it half the bytes of the next",
            1, SCI_J2K_MAX_LAYERS, DEFAULT_LAYERS, flags));
    g_object_class_install_property (gobject_class, PROP_CODE_BLOCK_STYLE,
        g_param_spec_flags ("code-block-style", "Code-block style",
            "Code-block coding style options of COD (ISO/IEC 15444-1 Table "
            "A.19)", GST_TYPE_SCI_J2K_CODE_BLOCK_STYLE,
            DEFAULT_CODE_BLOCK_STYLE, flags));
    g_object_class_install_property (gobject_class, PROP_FRAMES_IN_FLIGHT,
        g_param_spec_uint ("frames-in-flight", "Frames in flight",
            "CUDA backend: frames coded at once.  2: a frame's wavelet "
            "transform and Tier-1 run on the GPU while the host writes the "
            "codestream of the frame before (a higher frame rate, one frame "
            "more latency, twice the block coder's device memory); 1: each "
            "frame is coded before the next is taken.  The bytes are the same",
            1, 2, DEFAULT_FRAMES_IN_FLIGHT, flags));
    gst_type_mark_as_plugin_api (GST_TYPE_SCI_J2K_CODE_BLOCK_STYLE, 0);
  }
}

void
gst_sci_j2k_enc_init_properties (GstSciJ2kEnc * self)
{
  self->reversible = DEFAULT_REVERSIBLE;
  self->qstep = DEFAULT_QSTEP;
  self->levels = DEFAULT_LEVELS;
  self->block_width = DEFAULT_BLOCK_SIZE;
  self->block_height = DEFAULT_BLOCK_SIZE;
  self->progression = DEFAULT_PROGRESSION;
  self->colour = DEFAULT_COLOUR;
  self->bitrate = DEFAULT_BITRATE;
  self->jph = DEFAULT_JPH;
  self->layers = DEFAULT_LAYERS;
  self->cb_style = DEFAULT_CODE_BLOCK_STYLE;
  self->frames_in_flight = DEFAULT_FRAMES_IN_FLIGHT;
  self->refinement = DEFAULT_REFINEMENT;
  self->plt = DEFAULT_PLT;
}
