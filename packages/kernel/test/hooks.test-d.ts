/** Rule 11: the types plugin authors rely on, checked by the compiler (vitest --typecheck). */
import { describe, expectTypeOf, test } from "vitest";
import { z } from "zod";
import {
  definePlugin,
  type ChatParamsInput,
  type ChatParamsOutput,
  type HookInput,
  type HookName,
  type HookOutput,
  type PermissionAskOutput,
  type PluginContext,
  type PluginDefinition,
  type TapOptions,
} from "@tessera/kernel";

const base = { name: "typed", version: "1.0.0", kernel: "^1.0.0" } as const;

describe("ctx.tap", () => {
  test("a chat.params tap receives ChatParamsInput and ChatParamsOutput", () => {
    definePlugin({
      ...base,
      setup(ctx) {
        ctx.tap("chat.params", (input, output) => {
          expectTypeOf(input).toEqualTypeOf<ChatParamsInput>();
          expectTypeOf(output).toEqualTypeOf<ChatParamsOutput>();
          expectTypeOf(input.provider.id).toEqualTypeOf<string>();
          expectTypeOf(output.temperature).toEqualTypeOf<number | undefined>();
        });
      },
    });
  });

  test("every hook's tap is typed by the hook table", () => {
    definePlugin({
      ...base,
      setup(ctx) {
        ctx.tap("permission.ask", (_input, output) => {
          expectTypeOf(output).toEqualTypeOf<PermissionAskOutput>();
          expectTypeOf(output.status).toEqualTypeOf<"ask" | "allow" | "deny">();
        });
        ctx.tap("tool.execute.before", (input, output) => {
          expectTypeOf(input).toEqualTypeOf<HookInput<"tool.execute.before">>();
          expectTypeOf(output.args).toEqualTypeOf<Record<string, unknown>>();
        });
        ctx.tap("event", (input) => {
          expectTypeOf(input.event.type).toEqualTypeOf<string>();
        });
      },
    });
  });

  test("a misspelled hook name does not compile", () => {
    definePlugin({
      ...base,
      setup(ctx) {
        // @ts-expect-error "chat.parms" is not a hook
        ctx.tap("chat.parms", () => {});
      },
    });
  });

  test("a tap that writes the wrong type into output does not compile", () => {
    definePlugin({
      ...base,
      setup(ctx) {
        ctx.tap("chat.params", (_input, output) => {
          // @ts-expect-error temperature is a number
          output.temperature = "hot";
        });
      },
    });
  });

  test("input is read-only", () => {
    definePlugin({
      ...base,
      setup(ctx) {
        ctx.tap("chat.params", (input) => {
          // @ts-expect-error input is context, not output
          input.sessionID = "other";
        });
      },
    });
  });

  test("tap options: order is pre, normal or post; timeout is a number", () => {
    expectTypeOf<TapOptions["order"]>().toEqualTypeOf<"pre" | "normal" | "post" | undefined>();
    expectTypeOf<TapOptions["timeout"]>().toEqualTypeOf<number | undefined>();
    definePlugin({
      ...base,
      setup(ctx) {
        // @ts-expect-error "first" is not an order band
        ctx.tap("chat.system", () => {}, { order: "first" });
      },
    });
  });

  test("the hook name parameter is exactly the fourteen hook names", () => {
    expectTypeOf<Parameters<PluginContext["tap"]>[0]>().toEqualTypeOf<HookName>();
    expectTypeOf<HookName>().toEqualTypeOf<
      | "chat.message"
      | "chat.system"
      | "chat.params"
      | "chat.headers"
      | "tool.definition"
      | "tool.execute.before"
      | "tool.execute.after"
      | "permission.ask"
      | "text.complete"
      | "step.start"
      | "step.finish"
      | "session.compacting"
      | "shell.env"
      | "event"
    >();
    expectTypeOf<HookOutput<"chat.params">>().toEqualTypeOf<ChatParamsOutput>();
  });
});

describe("definePlugin", () => {
  test("infers the options type from its zod schema (output type, defaults applied)", () => {
    const plugin = definePlugin({
      ...base,
      options: z.object({
        blocked: z.array(z.string()).default(["rm -rf"]),
        level: z.enum(["quiet", "loud"]),
        limit: z.number().optional(),
      }),
      setup(_ctx, options) {
        expectTypeOf(options).toEqualTypeOf<{ blocked: string[]; level: "quiet" | "loud"; limit?: number | undefined }>();
        // @ts-expect-error not an option
        void options.unknown;
      },
    });
    expectTypeOf(plugin).toExtend<PluginDefinition>();
  });

  test("without a schema, options are a record", () => {
    definePlugin({
      ...base,
      setup(ctx, options) {
        expectTypeOf(ctx).toEqualTypeOf<PluginContext>();
        expectTypeOf(options).toEqualTypeOf<Record<string, unknown>>();
      },
    });
  });

  test("a plugin missing its kernel range does not compile", () => {
    // @ts-expect-error kernel is required
    definePlugin({ name: "x", version: "1.0.0", setup() {} });
  });
});
