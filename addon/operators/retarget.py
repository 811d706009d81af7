"""The Mocap I/O panel in the 3D View's sidebar: source and target armatures, the bone map (an
editable list: auto-map, load and save a JSON preset), the retarget options, and the Retarget
operator (`mocap_io.retarget`). Scripts call to_blender.retarget.retarget_armature, or the operator
with keyword arguments (names of the armatures; the panel's state fills in the rest)."""

import bpy
import numpy as np
from bpy.props import BoolProperty, CollectionProperty, IntProperty, PointerProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from ... import core
from ...core.bone_map import load_preset, save_preset
from ..common.failures import message
from ..from_blender.armature import armature_skeleton
from ..to_blender.retarget import retarget_armature


class BonePair(bpy.types.PropertyGroup):
    source: StringProperty(name="Source Bone", description="A bone of the source armature")
    target: StringProperty(name="Target Bone", description="The bone of the target armature it drives")


class Options:
    """The retarget options: the panel's and the operator's."""

    scale_root: BoolProperty(
        name="Scale Root Motion by Leg Length",
        default=True,
        description="The target's hips move like the source's scaled by the ratio of their leg lengths, so a "
        "taller rig takes longer steps (off: the source's steps as they are)",
    )
    fix_feet: BoolProperty(
        name="Fix Feet",
        default=True,  # core.retarget's default
        description="Hold the target's feet on its floor while the source's feet stand: planted on the heel, "
        "flat, then on the ball as the source's roll from heel to toe, the legs bent to reach them by two-bone "
        "IK eased in and out in rotation space (off: the legs turn exactly as the source's, and feet may slide)",
    )
    resample: BoolProperty(
        name="Resample to Scene Rate",
        default=False,
        description="Key the target on whole scene frames, resampling a source keyed between them (a take "
        "imported at its own rate into a slower scene); off: keys where the source is sampled",
    )


class RetargetSettings(bpy.types.PropertyGroup, Options):
    """The panel's state, kept on the scene (`scene.mocap_io_retarget`). Properties only: bpy 4.2
    crashes at exit after a property group with a method or a pointer poll function was registered."""

    source: PointerProperty(type=bpy.types.Object, name="Source", description="The armature whose animation is read")
    target: PointerProperty(type=bpy.types.Object, name="Target", description="The armature that gets a new action")
    bone_map: CollectionProperty(type=BonePair, name="Bone Map")
    active_pair: IntProperty(name="Active Pair")


def _settings(context) -> RetargetSettings:
    return context.scene.mocap_io_retarget


def bone_map_of(settings):
    """{source bone: target bone} of the panel's rows with both names."""
    return {pair.source: pair.target for pair in settings.bone_map if pair.source and pair.target}


def _fill(settings, bone_map):
    """Replace the panel's rows by those of `bone_map` {source bone: target bone}."""
    settings.bone_map.clear()
    for source, target in bone_map.items():
        pair = settings.bone_map.add()
        pair.source, pair.target = source, target
    settings.active_pair = 0


def _armatures(*objects):
    return all(obj is not None and obj.type == "ARMATURE" for obj in objects)


class MOCAP_IO_UL_bone_map(bpy.types.UIList):
    """One row per bone pair: the source bone and the target bone it drives, each picked from its armature."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_property, index=0, flt_flag=0):
        row = layout.row(align=True)
        for obj, name in ((data.source, "source"), (data.target, "target")):
            if _armatures(obj):
                row.prop_search(item, name, obj.data, "bones", text="", icon="BONE_DATA")
            else:
                row.prop(item, name, text="", emboss=False)


class AutoMapBones(bpy.types.Operator):
    """Fill the bone map from the bones' names, and from the skeletons' structure where names fail"""

    bl_idname = "mocap_io.auto_map"
    bl_label = "Auto-Map"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        settings = _settings(context)
        return _armatures(settings.source, settings.target)

    def execute(self, context):
        settings = _settings(context)
        skeletons = [armature_skeleton(obj, np.eye(3), 1.0) for obj in (settings.source, settings.target)]
        _fill(settings, core.auto_map(*skeletons))
        self.report({"INFO"}, f"{len(settings.bone_map)} of {skeletons[1].joint_count} target bones mapped")
        return {"FINISHED"}


class AddBonePair(bpy.types.Operator):
    """Add a row to the bone map"""

    bl_idname = "mocap_io.bone_map_add"
    bl_label = "Add Bone Pair"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        settings = _settings(context)
        settings.bone_map.add()
        settings.active_pair = len(settings.bone_map) - 1
        return {"FINISHED"}


class RemoveBonePair(bpy.types.Operator):
    """Remove the selected row from the bone map"""

    bl_idname = "mocap_io.bone_map_remove"
    bl_label = "Remove Bone Pair"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        settings = _settings(context)
        return 0 <= settings.active_pair < len(settings.bone_map)

    def execute(self, context):
        settings = _settings(context)
        settings.bone_map.remove(settings.active_pair)
        settings.active_pair = min(settings.active_pair, len(settings.bone_map) - 1)
        return {"FINISHED"}


class LoadBoneMap(bpy.types.Operator, ImportHelper):
    """Replace the bone map by a JSON preset ({"source bone": "target bone", ...})"""

    bl_idname = "mocap_io.bone_map_load"
    bl_label = "Load Bone Map"
    bl_options = {"REGISTER", "UNDO"}
    filename_ext = ".json"
    filter_glob: StringProperty(default="*.json", options={"HIDDEN"})

    def execute(self, context):
        path = self.filepath  # pyright: ignore[reportAttributeAccessIssue] - ImportHelper's, missing from the stubs
        try:
            bone_map = load_preset(path)
        except Exception as error:
            self.report({"ERROR"}, message(error, path))
            return {"CANCELLED"}
        _fill(_settings(context), bone_map)
        self.report({"INFO"}, f"{len(bone_map)} bone pairs loaded")
        return {"FINISHED"}


class SaveBoneMap(bpy.types.Operator, ExportHelper):
    """Save the bone map as a JSON preset"""

    bl_idname = "mocap_io.bone_map_save"
    bl_label = "Save Bone Map"
    filename_ext = ".json"
    filter_glob: StringProperty(default="*.json", options={"HIDDEN"})

    def execute(self, context):
        path = self.filepath  # pyright: ignore[reportAttributeAccessIssue] - ExportHelper's, missing from the stubs
        try:
            save_preset(bone_map_of(_settings(context)), path)
        except Exception as error:
            self.report({"ERROR"}, message(error, path))
            return {"CANCELLED"}
        return {"FINISHED"}


class Retarget(bpy.types.Operator, Options):
    """Bake the source armature's animation onto the target armature, in a new action over the source's
    frame range"""

    bl_idname = "mocap_io.retarget"
    bl_label = "Retarget"
    bl_options = {"REGISTER", "UNDO"}

    source: StringProperty(name="Source", description="The source armature's object name (default: the panel's)")
    target: StringProperty(name="Target", description="The target armature's object name (default: the panel's)")
    preset: StringProperty(
        name="Bone Map Preset",
        subtype="FILE_PATH",
        description="A JSON bone map (default: the panel's bone map for the panel's armatures, else auto-mapped)",
    )

    def execute(self, context):
        settings = _settings(context)
        for name in ("scale_root", "fix_feet", "resample"):  # what the call leaves out comes from the panel
            if not self.properties.is_property_set(name):
                setattr(self, name, getattr(settings, name))
        try:
            source, target = (self._armature(settings, role) for role in ("source", "target"))
            if self.preset:
                bone_map = load_preset(bpy.path.abspath(self.preset))
            elif (source, target) == (settings.source, settings.target) and bone_map_of(settings):
                bone_map = bone_map_of(settings)
            else:
                bone_map = None
            action = retarget_armature(
                context,
                source,
                target,
                bone_map,
                root_scale="legs" if self.scale_root else 1.0,
                fix_feet=self.fix_feet,
                resample=self.resample,
            )
        except Exception as error:
            self.report({"ERROR"}, message(error))
            return {"CANCELLED"}
        self.report({"INFO"}, f"{source.name!r} retargeted onto {target.name!r}: action {action.name!r}")
        return {"FINISHED"}

    def _armature(self, settings, role):
        """The object named by the `role` option, else the panel's."""
        name = getattr(self, role)
        obj = bpy.data.objects.get(name) if name else getattr(settings, role)
        if obj is None:
            raise ValueError(f"no object named {name!r}" if name else f"choose a {role} armature")
        return obj


class VIEW3D_PT_mocap_io_retarget(bpy.types.Panel):
    """Retarget one armature's animation onto another"""

    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Mocap I/O"
    bl_label = "Retarget"

    def draw(self, context):
        settings = _settings(context)
        layout = self.layout
        layout.prop(settings, "source")
        layout.prop(settings, "target")
        row = layout.row(align=True)
        row.operator(AutoMapBones.bl_idname, icon="AUTO")
        row.operator(LoadBoneMap.bl_idname, text="", icon="FILEBROWSER")
        row.operator(SaveBoneMap.bl_idname, text="", icon="FILE_TICK")
        row = layout.row()
        row.template_list(MOCAP_IO_UL_bone_map.__name__, "", settings, "bone_map", settings, "active_pair", rows=6)
        column = row.column(align=True)
        column.operator(AddBonePair.bl_idname, text="", icon="ADD")
        column.operator(RemoveBonePair.bl_idname, text="", icon="REMOVE")
        column = layout.column()
        for name in ("scale_root", "fix_feet", "resample"):
            column.prop(settings, name)
        layout.operator(Retarget.bl_idname, icon="ARMATURE_DATA")


CLASSES = (
    BonePair,
    RetargetSettings,
    MOCAP_IO_UL_bone_map,
    AutoMapBones,
    AddBonePair,
    RemoveBonePair,
    LoadBoneMap,
    SaveBoneMap,
    Retarget,
    VIEW3D_PT_mocap_io_retarget,
)
MENUS = ()
PROPERTIES = ((bpy.types.Scene, "mocap_io_retarget", PointerProperty(type=RetargetSettings)),)
