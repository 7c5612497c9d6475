import JuiceCLI

// The composition root lives in the JuiceCLI library; this is only the process, with
// the plugins shipped with JuiceMaker. A package of its own starts the same `juice`
// with its plugin types added to these (the kit's article "Writing a plugin").
await JuiceProcess.main(plugins: JuiceProcess.builtInPlugins)
